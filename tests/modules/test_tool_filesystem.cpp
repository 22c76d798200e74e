// tool-filesystem through a real Session: reading, listing, and refusing every way out of the
// allowed roots, on real files in a temporary directory.
#include "module_test_support.hpp"

using namespace modtest;

namespace {

// root/ (the working directory and the only allowed root) beside outside/ (forbidden).
struct Workspace {
  TempDir dir;
  fs::path root = dir / "root";
  fs::path outside = dir / "outside";

  Workspace() {
    std::string notes;
    for (int i = 1; i <= 10; ++i) notes += "line " + std::to_string(i) + "\n";
    write_file(root / "notes.txt", notes);
    write_file(root / "sub" / "inner.txt", "inner\n");
    write_file(root / "empty.txt", "");
    write_file(root / "binary.bin", std::string("\x7f" "ELF\0\0\x01", 7));
    write_file(outside / "secret.txt", "top secret\n");
    fs::create_symlink(outside / "secret.txt", root / "link_out");
    fs::create_symlink(outside, root / "dir_out");
    fs::create_symlink(root / "sub", root / "link_in");
  }

  std::string plan() const {
    const json::object config{{"working_dir", root.string()},
                              {"allowed_read_paths", json::array{root.string()}}};
    return plan_with("tools:\n  - module: tool-filesystem\n    config: " + yaml_json(config) + "\n");
  }
};

struct ToolOutcome {
  bool success;
  std::string output;
  std::string error;
};

ToolOutcome run(amplifier::Session &session, std::string_view tool, const json::value &input) {
  auto call = run_tool(session, tool, json::serialize(input));
  REQUIRE(call->wait_finished());
  REQUIRE(call->status == AMP_OK);
  CHECK(call->finish_count == 1);
  auto result = call->result();
  ToolOutcome outcome{result.at("success").as_bool(), "", ""};
  if (result.at("output").is_string()) outcome.output = result.at("output").as_string();
  if (auto *error = result.if_contains("error"); error && error->is_object())
    outcome.error = error->at("message").as_string();
  if (!outcome.success) CHECK(outcome.output == outcome.error);  // the model reads output
  return outcome;
}

}  // namespace

TEST_CASE("tool-filesystem read_file returns numbered lines, honouring offset and limit") {
  Workspace ws;
  auto session = open_session(ws.plan());

  auto part = run(*session, "read_file", json::object{{"path", "notes.txt"}, {"offset", 3}, {"limit", 2}});
  CHECK(part.success);
  CHECK(part.output ==
        "     3\tline 3\n     4\tline 4\n... (more lines follow; read again with offset=5)\n");

  auto whole = run(*session, "read_file", json::object{{"path", (ws.root / "notes.txt").string()}});
  CHECK(whole.success);
  CHECK(whole.output.starts_with("     1\tline 1\n     2\tline 2\n"));
  CHECK(whole.output.ends_with("    10\tline 10\n"));

  auto tail = run(*session, "read_file", json::object{{"path", "notes.txt"}, {"offset", 10}});
  CHECK(tail.output == "    10\tline 10\n");

  auto nested = run(*session, "read_file", json::object{{"path", "sub/../sub/inner.txt"}});
  CHECK(nested.output == "     1\tinner\n");

  auto through_inner_link = run(*session, "read_file", json::object{{"path", "link_in/inner.txt"}});
  CHECK(through_inner_link.success);  // a symlink that stays inside the root is fine

  auto past_end = run(*session, "read_file", json::object{{"path", "notes.txt"}, {"offset", 11}});
  CHECK(!past_end.success);
  CHECK(past_end.error == "offset 11 is past the end of notes.txt (10 lines)");

  CHECK(run(*session, "read_file", json::object{{"path", "empty.txt"}}).output == "(empty.txt is empty)");
}

TEST_CASE("tool-filesystem read_file explains missing files, directories and binary files") {
  Workspace ws;
  auto session = open_session(ws.plan());
  auto missing = run(*session, "read_file", json::object{{"path", "nope.txt"}});
  CHECK(!missing.success);
  CHECK(missing.error == "File not found: nope.txt");

  auto directory = run(*session, "read_file", json::object{{"path", "sub"}});
  CHECK(!directory.success);
  CHECK(directory.error.find("is a directory") != std::string::npos);

  auto binary = run(*session, "read_file", json::object{{"path", "binary.bin"}});
  CHECK(!binary.success);
  CHECK(binary.error.find("binary file") != std::string::npos);
}

TEST_CASE("tool-filesystem list_directory sorts entries and marks directories") {
  Workspace ws;
  auto session = open_session(ws.plan());
  auto listing = run(*session, "list_directory", json::object{});
  CHECK(listing.success);
  CHECK(listing.output ==
        "binary.bin\ndir_out/\nempty.txt\nlink_in/\nlink_out\nnotes.txt\nsub/\n");
  CHECK(run(*session, "list_directory", json::object{{"path", "sub"}}).output == "inner.txt\n");

  auto file = run(*session, "list_directory", json::object{{"path", "notes.txt"}});
  CHECK(!file.success);
  CHECK(file.error.find("is a file, not a directory") != std::string::npos);
  CHECK(run(*session, "list_directory", json::object{{"path", "ghost"}}).error ==
        "Directory not found: ghost");
}

TEST_CASE("tool-filesystem refuses paths that leave the allowed roots") {
  Workspace ws;
  auto session = open_session(ws.plan());
  auto refused = [&](std::string_view tool, std::string path) {
    auto outcome = run(*session, tool, json::object{{"path", path}});
    CHECK_MESSAGE(!outcome.success, path);
    CHECK_MESSAGE(outcome.error.starts_with("Access denied: '" + path + "'"), outcome.error);
    CHECK(outcome.output.find("top secret") == std::string::npos);
    return outcome;
  };
  refused("read_file", "../outside/secret.txt");
  refused("read_file", (ws.outside / "secret.txt").string());
  refused("read_file", "sub/../../outside/secret.txt");
  auto via_link = refused("read_file", "link_out");
  CHECK(via_link.error.find((ws.outside / "secret.txt").string()) != std::string::npos);
  refused("read_file", "dir_out/secret.txt");
  // A missing folder then "..": the lexical rest must not hide the symlink (found by fuzzing).
  refused("read_file", "missing/../dir_out/secret.txt");
  refused("read_file", "sub/missing/../../link_out");
  refused("read_file", "/etc/passwd");
  refused("list_directory", "..");
  refused("list_directory", "dir_out");
  // A sibling whose name extends the root's is not inside it.
  fs::create_directories(ws.dir / "rootless");
  refused("list_directory", (ws.dir / "rootless").string());
}

// The kernel checks input against each tool's published schema before the tool runs, so these
// are the kernel's messages; the tool's own checks stay as a second line of defence.
TEST_CASE("tool-filesystem's input is validated against its schema") {
  Workspace ws;
  auto session = open_session(ws.plan());
  auto check_error = [&](std::string_view tool, const json::value &input, std::string_view expected) {
    auto outcome = run(*session, tool, input);
    CHECK(!outcome.success);
    CHECK_MESSAGE(outcome.error.find(expected) != std::string::npos, outcome.error);
  };
  check_error("read_file", json::object{}, "Invalid input for read_file: input: missing required property 'path'");
  check_error("read_file", json::object{{"path", 5}}, "input.path: expected string, got number");
  check_error("read_file", json::object{{"path", "notes.txt"}, {"offset", 0}}, "input.offset: must be at least 1");
  check_error("read_file", json::object{{"path", "notes.txt"}, {"limit", "3"}}, "input.limit: expected integer");
  check_error("list_directory", json::array{1, 2}, "input: expected object, got array");
  check_error("list_directory", json::object{{"path", json::array{}}}, "input.path: expected string");

  auto call = run_tool(*session, "read_file", "{not json");
  REQUIRE(call->wait_finished());
  CHECK(call->status == AMP_OK);
  CHECK(call->result().at("success") == false);
}

TEST_CASE("tool-filesystem announces reads and publishes JSON-schema specs") {
  Workspace ws;
  std::mutex mutex;  // declared before the session, whose handler uses them
  std::vector<json::object> announced;
  auto session = open_session(ws.plan());
  session->hooks().register_handler("artifact:read", [&](std::string_view, const json::object &data) {
    std::lock_guard lock(mutex);
    announced.push_back(data);
    return amplifier::HookResult{};
  });
  run(*session, "read_file", json::object{{"path", "notes.txt"}});
  run(*session, "read_file", json::object{{"path", "nope.txt"}});  // a failed read announces nothing
  run(*session, "list_directory", json::object{{"path", "sub"}});
  REQUIRE(announced.size() == 2);
  CHECK(text_of(announced[0].at("path")) == (ws.root / "notes.txt").string());
  CHECK(announced[0].at("tool") == "read_file");
  CHECK(text_of(announced[1].at("path")) == (ws.root / "sub").string());
  CHECK(announced[1].at("tool") == "list_directory");

  const auto specs = session->coordinator().tool_specs();
  std::map<std::string, json::object> by_name;
  for (const auto &spec : specs) by_name[std::string(spec.at("name").as_string())] = spec.as_object();
  REQUIRE(by_name.count("read_file") == 1);
  REQUIRE(by_name.count("list_directory") == 1);
  const auto &read_params = by_name["read_file"].at("parameters").as_object();
  CHECK(read_params.at("type") == "object");
  CHECK(read_params.at("required") == json::array{"path"});
  CHECK(read_params.at("properties").at("offset").at("type") == "integer");
  CHECK(by_name["list_directory"].at("parameters").at("properties").at("path").at("type") == "string");
}

TEST_CASE("tool-filesystem config: a missing working_dir fails the mount") {
  LogCapture log;
  TempDir dir;
  const json::object config{{"working_dir", (dir.path() / "missing").string()}, {"alowed_read_paths", "."}};
  auto session = open_session(
      plan_with("tools:\n  - module: tool-filesystem\n    config: " + yaml_json(config) + "\n"));
  REQUIRE(session->load_failures().size() == 1);
  CHECK(session->load_failures()[0].error.find("'working_dir' is not an existing directory") != std::string::npos);
  CHECK(log.containing("unknown key 'alowed_read_paths' is ignored (did you mean 'allowed_read_paths'?)").size() == 1);
}
