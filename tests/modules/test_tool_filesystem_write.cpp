// tool-filesystem's write_file and edit_file through a real Session, on real files: creation,
// atomic replacement, exact edits, the write roots, and artifact:write.
#include "filesystem_test_support.hpp"

#include "amplifier/json_schema.hpp"

#include <atomic>
#include <thread>

using namespace fstest;

TEST_CASE("write_file creates a file and its missing parent directories") {
  Workspace ws;
  auto session = open_session(ws.plan());
  auto created = run(*session, "write_file", json::object{{"path", "sub/deeper/new.txt"}, {"content", "one\ntwo\n"}});
  CHECK(created.success);
  CHECK(created.output == "Created sub/deeper/new.txt (2 lines, 8 bytes)");
  CHECK(read_text(ws.root / "sub/deeper/new.txt") == "one\ntwo\n");

  auto replaced = run(*session, "write_file", json::object{{"path", (ws.root / "notes.txt").string()}, {"content", "x"}});
  CHECK(replaced.output == "Overwrote " + (ws.root / "notes.txt").string() + " (1 line, 1 byte)");
  CHECK(read_text(ws.root / "notes.txt") == "x");

  auto empty = run(*session, "write_file", json::object{{"path", "empty.txt"}, {"content", ""}});
  CHECK(empty.output == "Created empty.txt (0 lines, 0 bytes)");
  CHECK(fs::file_size(ws.root / "empty.txt") == 0);
  // The temporary files were renamed away, none is left behind.
  CHECK(names_in(ws.root) == std::vector<std::string>{"dir_out", "empty.txt", "notes.txt", "sub"});
}

TEST_CASE("write_file keeps a replaced file's permissions and gives new files the umask's") {
  Workspace ws;
  auto session = open_session(ws.plan());
  fs::permissions(ws.root / "notes.txt", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  run(*session, "write_file", json::object{{"path", "notes.txt"}, {"content", "new"}});
  CHECK(fs::status(ws.root / "notes.txt").permissions() ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));

  const mode_t mask = ::umask(0);
  ::umask(mask);
  run(*session, "write_file", json::object{{"path", "fresh.txt"}, {"content", "new"}});
  CHECK(static_cast<mode_t>(fs::status(ws.root / "fresh.txt").permissions()) == (0666 & ~mask));
}

TEST_CASE("write_file replaces a file atomically: a reader never sees a partial file") {
  Workspace ws;
  auto session = open_session(ws.plan());
  const std::string first(200'000, 'a'), second(100'000, 'b');
  write_file(ws.root / "big.txt", first);
  std::atomic<bool> writing{true};
  std::atomic<int> torn{0}, reads{0};
  std::thread reader([&] {
    while (writing) {
      const std::string seen = read_text(ws.root / "big.txt");
      if (seen != first && seen != second) ++torn;
      ++reads;
    }
  });
  for (int i = 0; i < 30; ++i)
    run(*session, "write_file", json::object{{"path", "big.txt"}, {"content", i % 2 ? first : second}});
  writing = false;
  reader.join();
  CHECK(reads > 0);
  CHECK(torn == 0);
}

TEST_CASE("write_file refuses paths outside the write roots, even readable ones") {
  Workspace ws;
  fs::create_directories(ws.root / "out");
  auto session = open_session(ws.plan({{"allowed_write_paths", json::array{"out"}}}));
  CHECK(run(*session, "write_file", json::object{{"path", "out/ok.txt"}, {"content", "fine"}}).success);
  auto readable_only = run_failing(*session, "write_file", json::object{{"path", "notes.txt"}, {"content", "no"}},
                                   "is outside the allowed write paths");
  CHECK(readable_only.error.starts_with("Access denied: 'notes.txt'"));
  run_failing(*session, "write_file", json::object{{"path", "../outside/x.txt"}, {"content", "no"}}, "Access denied");
  run_failing(*session, "write_file", json::object{{"path", (ws.outside / "x.txt").string()}, {"content", "no"}},
              "Access denied");
  run_failing(*session, "write_file", json::object{{"path", "dir_out/x.txt"}, {"content", "no"}}, "Access denied");
  run_failing(*session, "write_file", json::object{{"path", "out/../../outside/x.txt"}, {"content", "no"}},
              "Access denied");
  CHECK(names_in(ws.outside) == std::vector<std::string>{"secret.txt"});
  CHECK(read_text(ws.root / "notes.txt") == "alpha\nbeta\ngamma\n");
}

TEST_CASE("write_file explains bad input and directories") {
  Workspace ws;
  auto session = open_session(ws.plan());
  fs::create_directories(ws.root / "folder");
  run_failing(*session, "write_file", json::object{{"path", "folder"}, {"content", "x"}}, "folder is a directory");
  // Shape errors come from the kernel's check against the tool's schema.
  run_failing(*session, "write_file", json::object{{"path", "a.txt"}}, "missing required property 'content'");
  run_failing(*session, "write_file", json::object{{"content", "x"}}, "missing required property 'path'");
  run_failing(*session, "write_file", json::object{{"path", "a.txt"}, {"content", 3}}, "input.content: expected string");
}

TEST_CASE("edit_file replaces exact text once and says where") {
  Workspace ws;
  auto session = open_session(ws.plan());
  auto edited = run(*session, "edit_file",
                    json::object{{"path", "notes.txt"}, {"old_string", "beta\n"}, {"new_string", "BETA\nextra\n"}});
  CHECK(edited.success);
  CHECK(edited.output == "Replaced 1 occurrence in notes.txt (line 2)");
  CHECK(read_text(ws.root / "notes.txt") == "alpha\nBETA\nextra\ngamma\n");

  auto removed = run(*session, "edit_file", json::object{{"path", "notes.txt"}, {"old_string", "extra\n"}, {"new_string", ""}});
  CHECK(removed.output == "Replaced 1 occurrence in notes.txt (line 3)");
  CHECK(read_text(ws.root / "notes.txt") == "alpha\nBETA\ngamma\n");
}

TEST_CASE("edit_file refuses missing and ambiguous text unless replace_all is set") {
  Workspace ws;
  write_file(ws.root / "code.py", "x = 1\ny = x\nprint(x)\nz = 2\nx = 3\n");
  auto session = open_session(ws.plan());
  auto missing = run_failing(*session, "edit_file",
                             json::object{{"path", "code.py"}, {"old_string", "w = 1"}, {"new_string", "w = 2"}},
                             "old_string was not found in code.py");
  CHECK(missing.error.find("including whitespace") != std::string::npos);

  run_failing(*session, "edit_file", json::object{{"path", "code.py"}, {"old_string", "x ="}, {"new_string", "a ="}},
              "old_string occurs 2 times in code.py (lines 1, 5); include more surrounding text");
  CHECK(read_text(ws.root / "code.py") == "x = 1\ny = x\nprint(x)\nz = 2\nx = 3\n");  // untouched

  auto all = run(*session, "edit_file",
                 json::object{{"path", "code.py"}, {"old_string", "x"}, {"new_string", "value\nv"}, {"replace_all", true}});
  CHECK(all.success);
  // Lines are counted in the new text: each replacement adds a line.
  CHECK(all.output == "Replaced 4 occurrences in code.py (lines 1, 3, 5, 8)");
  CHECK(read_text(ws.root / "code.py") ==
        "value\nv = 1\ny = value\nv\nprint(value\nv)\nz = 2\nvalue\nv = 3\n");

  run_failing(*session, "edit_file", json::object{{"path", "code.py"}, {"old_string", ""}, {"new_string", "a"}},
              "input.old_string: must be at least 1 character long");
  run_failing(*session, "edit_file", json::object{{"path", "code.py"}, {"old_string", "z"}, {"new_string", "z"}},
              "identical");
  run_failing(*session, "edit_file", json::object{{"path", "ghost.py"}, {"old_string", "a"}, {"new_string", "b"}},
              "File not found: ghost.py");
  run_failing(*session, "edit_file", json::object{{"path", "code.py"}, {"old_string", "a"}}, "missing required property 'new_string'");
}

TEST_CASE("edit_file points out Windows line endings when a multi-line old_string misses") {
  Workspace ws;
  write_file(ws.root / "dos.txt", "one\r\ntwo\r\n");
  auto session = open_session(ws.plan());
  run_failing(*session, "edit_file", json::object{{"path", "dos.txt"}, {"old_string", "one\ntwo"}, {"new_string", "x"}},
              "Windows line endings");
  CHECK(run(*session, "edit_file", json::object{{"path", "dos.txt"}, {"old_string", "one\r\ntwo"}, {"new_string", "x"}})
            .success);
  CHECK(read_text(ws.root / "dos.txt") == "x\r\n");
}

TEST_CASE("edit_file needs the path to be both readable and writable") {
  Workspace ws;
  write_file(ws.root / "write_only/w.txt", "data\n");
  write_file(ws.root / "read_only/r.txt", "data\n");
  auto session = open_session(ws.plan({{"allowed_read_paths", json::array{"read_only"}},
                                       {"allowed_write_paths", json::array{"write_only"}}}));
  run_failing(*session, "edit_file", json::object{{"path", "write_only/w.txt"}, {"old_string", "data"}, {"new_string", "x"}},
              "outside the allowed read paths");
  run_failing(*session, "edit_file", json::object{{"path", "read_only/r.txt"}, {"old_string", "data"}, {"new_string", "x"}},
              "outside the allowed write paths");
  CHECK(read_text(ws.root / "write_only/w.txt") == "data\n");
  CHECK(read_text(ws.root / "read_only/r.txt") == "data\n");
}

TEST_CASE("write_file and edit_file announce artifact:write; failures announce nothing") {
  Workspace ws;
  auto session = open_session(ws.plan());
  EventRecorder writes(*session, "artifact:write");
  run(*session, "write_file", json::object{{"path", "a.txt"}, {"content", "hello"}});
  run(*session, "write_file", json::object{{"path", "a.txt"}, {"content", "hello hello"}});
  run(*session, "edit_file", json::object{{"path", "a.txt"}, {"old_string", "hello"}, {"new_string", "bye"}, {"replace_all", true}});
  run(*session, "edit_file", json::object{{"path", "a.txt"}, {"old_string", "absent"}, {"new_string", "x"}});
  run(*session, "write_file", json::object{{"path", "../escape.txt"}, {"content", "x"}});
  const auto events = writes.events();
  REQUIRE(events.size() == 3);
  const std::string path = (ws.root / "a.txt").string();
  CHECK(text_of(events[0].at("path")) == path);
  CHECK(events[0].at("tool") == "write_file");
  CHECK(events[0].at("bytes") == 5);
  CHECK(events[0].at("created") == true);
  CHECK(events[1].at("created") == false);
  CHECK(events[1].at("bytes") == 11);
  CHECK(events[2].at("tool") == "edit_file");
  CHECK(events[2].at("replacements") == 2);
  CHECK(read_text(ws.root / "a.txt") == "bye bye");
}

TEST_CASE("tool-filesystem publishes the six tools with JSON-schema parameters") {
  Workspace ws;
  auto session = open_session(ws.plan());
  std::map<std::string, json::object> specs;
  for (const auto &spec : session->coordinator().tool_specs())
    specs[std::string(spec.at("name").as_string())] = spec.as_object();
  for (const char *name : {"read_file", "list_directory", "write_file", "edit_file", "glob", "grep"}) {
    REQUIRE_MESSAGE(specs.count(name) == 1, name);
    CHECK(specs[name].at("parameters").at("type") == "object");
    CHECK(specs[name].at("parameters").at("additionalProperties") == false);
  }
  CHECK(specs["write_file"].at("parameters").at("required") == json::array{"path", "content"});
  CHECK(specs["edit_file"].at("parameters").at("required") == json::array{"path", "old_string", "new_string"});
  CHECK(specs["edit_file"].at("parameters").at("properties").at("replace_all").at("type") == "boolean");
  CHECK(specs["grep"].at("parameters").at("properties").at("case_insensitive").at("type") == "boolean");
  CHECK(specs["glob"].at("parameters").at("required") == json::array{"pattern"});

  // The parameters compile as JSON Schemas, so the kernel can check inputs before a call.
  for (const auto &[name, spec] : specs) CHECK_NOTHROW(amplifier::JsonSchema(spec.at("parameters")));
  const amplifier::JsonSchema edit(specs["edit_file"].at("parameters"));
  CHECK(edit.accepts(json::parse(R"({"path":"a","old_string":"x","new_string":"y","replace_all":true})")));
  CHECK(amplifier::describe_violations(edit.validate(json::parse(R"({"path":"a","old_string":"","replace":1})"))) ==
        "input: missing required property 'new_string'; input.old_string: must be at least 1 character long, "
        "got 0; input: unexpected property 'replace' (allowed: path, old_string, new_string, replace_all)");
}
