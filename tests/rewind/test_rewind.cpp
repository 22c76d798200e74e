// Rewind and fork: the checkpoints tool-filesystem keeps, and `amplifier sessions fork`.
#include "host_process.hpp"

#include "amplifier/module_support/file_checkpoints.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
namespace json = boost::json;
namespace ms = amplifier::module_support;
using amp_host_test::run_amplifier;
using amp_host_test::Scratch;
using amp_test::read_whole_file;

namespace {

// The id `amplifier run` reports for the session it stored.
std::string stored_session_id(const std::string &stderr_text) {
  std::smatch match;
  REQUIRE_MESSAGE(std::regex_search(stderr_text, match, std::regex("session ([0-9a-f-]{36}) is stored")),
                  stderr_text);
  return match[1];
}

// A plan on files in <scratch>/store, its tools working in <scratch>/work, the mock answering
// with `responses` (YAML flow list).
std::string plan(const Scratch &s, const std::string &responses, const std::string &fs_config = "") {
  return "session:\n  orchestrator: loop-basic\n  context:\n    module: context-persistent\n"
         "    config: {store_dir: '" + (s.dir / "store").string() + "'}\n"
         "providers:\n  - module: provider-mock\n    config: {responses: " + responses + "}\n"
         "tools:\n  - module: tool-filesystem\n    config: {working_dir: '" + (s.dir / "work").string() +
         "'" + fs_config + "}\n";
}

}  // namespace

TEST_CASE("FileCheckpoints: the first change per turn is kept; a restore goes back turn by turn, newest first") {
  Scratch s;
  const fs::path work = s.dir / "work", folder = s.dir / "checkpoints";
  s.write("work/a.txt", "one");
  s.write("work/big.txt", std::string(200, 'x'));
  {
    ms::FileCheckpoints checkpoints(folder, ms::CheckpointLimits{100, 1000});
    CHECK(checkpoints.keep_before_change(work / "a.txt", 1, "edit_file").empty());
    s.write("work/a.txt", "two");
    CHECK(checkpoints.keep_before_change(work / "a.txt", 1, "edit_file").empty());  // kept already
    s.write("work/a.txt", "three");
    CHECK(checkpoints.keep_before_change(work / "b.txt", 2, "write_file").empty());
    s.write("work/b.txt", "new");
    CHECK(checkpoints.keep_before_change(work / "a.txt", 2, "write_file").empty());
    s.write("work/a.txt", "four");
    const std::string big = checkpoints.keep_before_change(work / "big.txt", 2, "write_file");
    CHECK(big == "not checkpointed (it is 200 bytes, over the checkpoint limit of 100 bytes per "
                 "file): a rewind cannot restore this file");
    s.write("work/big.txt", "small now");
    CHECK(checkpoints.entries().size() == 4);
  }
  // A crash mid-line leaves a torn last line: it is skipped, the rest read back.
  std::ofstream(folder / "journal.jsonl", std::ios::app) << R"({"seq":9,"turn":)";

  ms::FileCheckpoints reread(folder, ms::CheckpointLimits{100, 1000});
  REQUIRE(reread.entries().size() == 4);
  CHECK(reread.entries_after(1).size() == 3);
  const ms::RestoreReport to_one = reread.restore_after(1);
  CHECK(read_whole_file(work / "a.txt") == "three");  // as turn 1 left it
  CHECK_FALSE(fs::exists(work / "b.txt"));      // turn 2 created it
  CHECK(read_whole_file(work / "big.txt") == "small now");
  REQUIRE(to_one.problems.size() == 1);
  CHECK(to_one.problems[0].find("big.txt: not restored: it is 200 bytes") != std::string::npos);
  CHECK(to_one.removed == std::vector<fs::path>{work / "b.txt"});
  CHECK(to_one.restored == std::vector<fs::path>{work / "a.txt"});
  CHECK(reread.entries().size() == 1);

  const ms::RestoreReport to_zero = ms::FileCheckpoints(folder).restore_after(0);
  CHECK(read_whole_file(work / "a.txt") == "one");
  CHECK(ms::FileCheckpoints(folder).entries().empty());
  CHECK(fs::is_empty(folder / "blobs"));
}

TEST_CASE("FileCheckpoints: two instances see each other's journal; folded turns; a link put in place of a folder is refused and kept") {
  Scratch s;
  const fs::path work = s.dir / "work", folder = s.dir / "checkpoints";
  s.write("work/sub/y.txt", "start");
  ms::FileCheckpoints tool(folder), host(folder);  // tool-filesystem's and chat's
  CHECK(tool.keep_before_change(work / "sub/y.txt", 2, "write_file").empty());
  s.write("work/sub/y.txt", "a");
  CHECK(tool.keep_before_change(work / "sub/y.txt", 3, "write_file").empty());
  s.write("work/sub/y.txt", "b");
  // /rewind 1 without the files: turns 2 and 3 now belong to turn 1's end.
  host.fold_turns_after(1);
  REQUIRE(tool.entries().size() == 2);
  CHECK(tool.entries()[0].turn == 1);
  // The new turn 2 changes y.txt again: kept, because the tool read the folded journal.
  CHECK(tool.keep_before_change(work / "sub/y.txt", 2, "edit_file").empty());
  s.write("work/sub/y.txt", "c");
  CHECK(host.entries().size() == 3);
  const auto to_one = host.restore_after(1);  // undoes only the new turn 2
  CHECK(read_whole_file(work / "sub/y.txt") == "b");
  CHECK(to_one.restored.size() == 1);

  // A link put where the folder was: nothing is written through it, and the entries stay.
  fs::rename(work / "sub", work / "moved");
  fs::create_directories(s.dir / "elsewhere");
  fs::create_directory_symlink(s.dir / "elsewhere", work / "sub");
  const auto refused = host.restore_after(0);
  REQUIRE(refused.problems.size() == 2);
  CHECK(refused.problems[0].find("its folder is no longer the one it was in") != std::string::npos);
  CHECK_FALSE(fs::exists(s.dir / "elsewhere/y.txt"));
  CHECK(host.entries().size() == 2);
  // Put back, the same rewind goes through.
  fs::remove(work / "sub");
  fs::rename(work / "moved", work / "sub");
  CHECK(host.restore_after(0).problems.empty());
  CHECK(read_whole_file(work / "sub/y.txt") == "start");
  CHECK(host.entries().empty());
}

TEST_CASE("tool-filesystem checkpoints each turn's changes in the session's folder, across resumed runs") {
  Scratch s;
  fs::create_directories(s.dir / "work");
  s.write("turn1.yaml", plan(s, "[{tool_calls: [{name: write_file, input: {path: a.txt, content: v1}}]}, {text: one}]"));
  const auto first = run_amplifier({"run", "--plan", "turn1.yaml", "write a"}, s.options());
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  const std::string id = stored_session_id(first.err);
  s.write("turn2.yaml", plan(s, "[{tool_calls: [{name: edit_file, input: {path: a.txt, old_string: v1, new_string: v2}},"
                                " {name: write_file, input: {path: b.txt, content: b}}]}, {text: two}]"));
  const auto second = run_amplifier({"run", "--plan", "turn2.yaml", "--resume", id, "change a, add b"}, s.options());
  INFO(second.out << second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(read_whole_file(s.dir / "work/a.txt") == "v2");

  const fs::path folder = s.dir / "store" / id / "checkpoints";
  const auto entries = ms::FileCheckpoints(folder).entries();
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].turn == 1);  // a.txt did not exist before the first turn
  CHECK_FALSE(entries[0].existed);
  // Turn 2's two calls ran side by side: their entries come in either order.
  const auto a = entries[1].path == s.dir / "work/a.txt" ? entries[1] : entries[2];
  const auto b = entries[1].path == s.dir / "work/a.txt" ? entries[2] : entries[1];
  CHECK(a.turn == 2);  // a.txt as turn 1 left it
  CHECK(a.existed);
  REQUIRE(a.blob);
  CHECK(read_whole_file(folder / "blobs" / *a.blob) == "v1");
  CHECK(b.path == s.dir / "work/b.txt");
  CHECK(b.turn == 2);
  CHECK_FALSE(b.existed);

  // checkpoints: false keeps nothing; a file over the limit is written and the model told.
  s.write("work/big.txt", std::string(64, 'x'));
  s.write("turn3.yaml", plan(s, "[{tool_calls: [{name: write_file, input: {path: big.txt, content: small}}]}, {text: three}]",
                             ", checkpoint_max_file_bytes: 10"));
  const auto third = run_amplifier({"run", "--plan", "turn3.yaml", "--resume", id, "--format", "jsonl", "shrink"}, s.options());
  INFO(third.err);
  REQUIRE(third.exit_code == 0);
  CHECK(third.out.find("Overwrote big.txt (1 line, 5 bytes); not checkpointed (it is 64 bytes, over the "
                       "checkpoint limit of 10 bytes per file)") != std::string::npos);
}

TEST_CASE("a session that is not stored keeps no checkpoints once it ends") {
  Scratch s;
  fs::create_directories(s.dir / "work");
  s.write("memory.yaml", "session: {orchestrator: loop-basic, context: context-simple}\n"
                         "providers:\n  - module: provider-mock\n    config: {responses: "
                         "[{tool_calls: [{name: write_file, input: {path: a.txt, content: v1}}]}, {text: one}]}\n"
                         "tools:\n  - module: tool-filesystem\n    config: {working_dir: '" +
                             (s.dir / "work").string() + "'}\n");
  const auto run = run_amplifier({"run", "--plan", "memory.yaml", "write"}, s.options());
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(read_whole_file(s.dir / "work/a.txt") == "v1");
  const fs::path store = s.dir / "home/.local/share/amplifier/sessions";
  CHECK((!fs::exists(store) || fs::is_empty(store)));
}

TEST_CASE("untrusted: a model that writes into the checkpoint folder is refused, even inside its allowed paths") {
  Scratch s;
  fs::create_directories(s.dir / "work");
  s.write("turn1.yaml", plan(s, "[{tool_calls: [{name: write_file, input: {path: a.txt, content: v1}}]}, {text: one}]"));
  // The tools work in the whole scratch folder, the session store included.
  auto whole_folder = [&](std::string text) {
    const std::string work = "working_dir: '" + (s.dir / "work").string() + "'";
    return text.replace(text.find(work), work.size(), "working_dir: '" + s.dir.string() + "'");
  };
  const auto first = run_amplifier({"run", "--plan", "turn1.yaml", "write a"}, s.options());
  REQUIRE(first.exit_code == 0);
  const std::string id = stored_session_id(first.err);
  const fs::path journal = s.dir / "store" / id / "checkpoints" / "journal.jsonl";
  const std::string before = read_whole_file(journal);
  REQUIRE_FALSE(before.empty());
  // A forged entry would make a later /rewind write /etc/passwd-like paths of its choosing.
  s.write("forge.yaml", whole_folder(plan(s, "[{tool_calls: [{name: write_file, input: {path: '" + journal.string() +
                                    "', content: '{\"seq\":1,\"turn\":9,\"path\":\"/tmp/x\",\"existed\":true,\"bytes\":1}'}},"
                                    " {name: edit_file, input: {path: 'store/" + id + "/transcript.jsonl', old_string: 'a', new_string: 'b'}}]}, {text: done}]")));
  const auto forged = run_amplifier({"run", "--plan", "forge.yaml", "--resume", id, "--format", "jsonl", "go"}, s.options());
  INFO(forged.out << forged.err);
  REQUIRE(forged.exit_code == 0);
  CHECK(forged.out.find("Cannot write " + journal.string() + ": it is in the session store") != std::string::npos);
  CHECK(forged.out.find("Cannot write store/" + id + "/transcript.jsonl: it is in the session store") != std::string::npos);
  CHECK(read_whole_file(journal) == before);
}

TEST_CASE("sessions fork copies the transcript's lines byte for byte through the turn asked for") {
  Scratch s;
  fs::create_directories(s.dir / "work");
  s.write("p.yaml", plan(s, "[{text: first answer}, {text: second answer}]"));
  const auto first = run_amplifier({"run", "--plan", "p.yaml", "first question"}, s.options());
  REQUIRE(first.exit_code == 0);
  const std::string id = stored_session_id(first.err);
  REQUIRE(run_amplifier({"run", "--plan", "p.yaml", "--resume", id, "second question"}, s.options()).exit_code == 0);
  const fs::path store = s.dir / "store";
  const auto original = amp_test::file_lines(store / id / "transcript.jsonl");
  REQUIRE(original.size() == 4);

  const auto too_far = run_amplifier({"sessions", "fork", id, "--at", "3", "--plan", "p.yaml"}, s.options());
  CHECK(too_far.exit_code == 1);
  CHECK(too_far.err.find("has 2 turn(s): --at takes 0 to 2") != std::string::npos);
  CHECK(run_amplifier({"sessions", "fork", "no-such-session", "--plan", "p.yaml"}, s.options()).exit_code == 1);

  const auto forked = run_amplifier({"sessions", "fork", id, "--at", "1", "--plan", "p.yaml"}, s.options());
  INFO(forked.out << forked.err);
  REQUIRE(forked.exit_code == 0);
  std::smatch match;
  REQUIRE(std::regex_search(forked.out, match, std::regex("into ([0-9a-f-]{36}) \\(2 message")));
  const std::string fork_id = match[1];
  CHECK(forked.out.find("amplifier chat --plan p.yaml --resume " + fork_id) != std::string::npos);
  const auto copied = amp_test::file_lines(store / fork_id / "transcript.jsonl");
  REQUIRE(copied.size() == 2);
  CHECK(copied[0] == original[0]);
  CHECK(copied[1] == original[1]);
  CHECK(amp_test::file_lines(store / id / "transcript.jsonl") == original);  // untouched
  const json::object metadata = json::parse(read_whole_file(store / fork_id / "metadata.json")).as_object();
  CHECK(metadata.at("forked_from").at("session") == id.c_str());
  CHECK(metadata.at("forked_from").at("turn") == 1);
  CHECK(metadata.at("turn_count") == 1);

  const auto shown = run_amplifier({"sessions", "show", fork_id, "--plan", "p.yaml"}, s.options());
  CHECK(shown.out.find("forked from " + id + " at turn 1") != std::string::npos);
  CHECK(shown.out.find("[user, turn 1]\n  first question") != std::string::npos);
  CHECK(shown.out.find("second question") == std::string::npos);
  // The fork goes on by itself.
  const auto continued = run_amplifier({"run", "--plan", "p.yaml", "--resume", fork_id, "another"}, s.options());
  INFO(continued.err);
  CHECK(continued.exit_code == 0);
  CHECK(amp_test::file_lines(store / fork_id / "transcript.jsonl").size() == 4);
  CHECK(amp_test::file_lines(store / id / "transcript.jsonl") == original);
}
