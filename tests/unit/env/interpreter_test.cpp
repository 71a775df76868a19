#include "env/interpreter.hpp"

#include <gmock/gmock.h>
#include <gnu/libc-version.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "env/interpreter_script.hpp"
#include "pkg/tags.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace flashfit::env {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Optional;
using util::ErrorKind;

const InterpreterChoice kChoice{"/opt/fake/bin/python3", "--python"};

util::ProcessResult run_python(std::vector<std::string> args) {
  util::ProcessSpec spec;
  spec.argv = {FLASHFIT_TEST_PYTHON};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = "/";
  spec.timeout = std::chrono::seconds(60);
  auto run = util::run_process(spec);
  if (!run) return util::ProcessResult{};
  return *run;
}

// What the real interpreter answers to the embedded script, asked once.
const std::string& real_answer() {
  static const std::string answer = [] {
    auto run = run_python({"-c", interpreter_script});
    return run.succeeded() ? run.out : std::string();
  }();
  return answer;
}

json real_doc() {
  return json::parse(real_answer());
}

// pip's own list: the lines after "Compatible tags: N" in `pip debug --verbose`.
std::vector<std::string> pip_compatible_tags() {
  auto run = run_python({"-m", "pip", "debug", "--verbose"});
  std::vector<std::string> tags;
  bool found = false;
  for (auto line : util::split(run.out, '\n')) {
    if (found) {
      line = util::trim(line);
      if (!line.empty()) tags.emplace_back(line);
    } else if (util::starts_with(line, "Compatible tags: ")) {
      found = true;
    }
  }
  return tags;
}

std::vector<std::string> strings(const std::vector<pkg::Tag>& tags) {
  std::vector<std::string> out;
  out.reserve(tags.size());
  for (const auto& tag : tags) out.push_back(tag.str());
  return out;
}

util::Result<Interpreter> parse(const json& doc) {
  return parse_interpreter_facts(doc.dump(), kChoice);
}

// A minimal answer that parses; tests break one part of it at a time.
json minimal() {
  return json{{"version_info", {3, 11, 2, "final", 0}},
              {"implementation", "cpython"},
              {"sysconfig_platform", "linux-x86_64"}};
}

// ---------------------------------------------------------------------------
// The real answer

TEST(InterpreterFacts, RealAnswerFromTheTestPython) {
  ASSERT_FALSE(real_answer().empty()) << FLASHFIT_TEST_PYTHON << " did not answer the script";
  auto py = parse_interpreter_facts(real_answer(), {FLASHFIT_TEST_PYTHON, "--python"});
  ASSERT_TRUE(py) << util::render(py.error());

  EXPECT_EQ(py->implementation, "cpython");
  EXPECT_EQ(py->major, 3);
  EXPECT_GE(py->minor, 6);
  EXPECT_EQ(py->release_level, "final");
  EXPECT_EQ(py->choice.program, FLASHFIT_TEST_PYTHON);
  EXPECT_EQ(py->executable, FLASHFIT_TEST_PYTHON);
  EXPECT_TRUE(fs::path(py->realpath).is_absolute()) << py->realpath;
  EXPECT_EQ(py->realpath, fs::canonical(FLASHFIT_TEST_PYTHON).string());
  EXPECT_FALSE(py->in_venv);
  EXPECT_EQ(py->prefix, py->base_prefix);
  EXPECT_FALSE(py->purelib.empty());
  EXPECT_FALSE(py->platlib.empty());
  EXPECT_FALSE(py->include_dir.empty());
  EXPECT_FALSE(py->scripts_dir.empty());
  EXPECT_TRUE(py->has_pip);  // Debian's python3-pip is the tests' oracle
  EXPECT_EQ(py->abiflags, "");
  ASSERT_TRUE(py->soabi.has_value());
  EXPECT_TRUE(util::starts_with(*py->soabi, "cpython-3" + std::to_string(py->minor)));
  ASSERT_TRUE(py->ext_suffix.has_value());
  EXPECT_TRUE(util::ends_with(*py->ext_suffix, ".so"));

  utsname uts{};
  ASSERT_EQ(::uname(&uts), 0);
  const auto& facts = py->tag_facts;
  EXPECT_EQ(facts.implementation, "cpython");
  EXPECT_EQ(facts.python_major, 3);
  EXPECT_EQ(facts.python_minor, py->minor);
  EXPECT_THAT(facts.py_version_nodot, Optional(std::to_string(3) + std::to_string(py->minor)));
  EXPECT_THAT(facts.py_debug, Optional(false));
  EXPECT_FALSE(facts.gil_disabled);
  EXPECT_TRUE(facts.max_unicode_is_ucs4);
  EXPECT_EQ(facts.system, "Linux");
  EXPECT_EQ(facts.platform, std::string("linux-") + uts.machine);
  EXPECT_FALSE(facts.is_32bit);
  EXPECT_FALSE(facts.musl.has_value());
  EXPECT_TRUE(facts.manylinux_vetoed.empty());

  // The same glibc this test binary runs on.
  const auto parts = util::split(::gnu_get_libc_version(), '.');
  ASSERT_GE(parts.size(), 2u);
  ASSERT_TRUE(facts.glibc.has_value());
  EXPECT_EQ(facts.glibc->major, std::stoi(std::string(parts[0])));
  EXPECT_EQ(facts.glibc->minor, std::stoi(std::string(parts[1])));

  const auto& m = py->markers;
  for (auto name : pkg::MarkerEnvironment::variable_names()) {
    if (name == "extra") continue;
    const auto* value = m.find(name);
    ASSERT_NE(value, nullptr) << name;
    EXPECT_TRUE(value->has_value()) << "marker " << name << " is not filled";
  }
  EXPECT_FALSE(m.extra.has_value());
  EXPECT_THAT(m.implementation_name, Optional(std::string("cpython")));
  EXPECT_THAT(m.platform_python_implementation, Optional(std::string("CPython")));
  EXPECT_THAT(m.os_name, Optional(std::string("posix")));
  EXPECT_THAT(m.sys_platform, Optional(std::string("linux")));
  EXPECT_THAT(m.platform_system, Optional(std::string("Linux")));
  EXPECT_THAT(m.platform_machine, Optional(std::string(uts.machine)));
  EXPECT_THAT(m.platform_release, Optional(std::string(uts.release)));
  EXPECT_THAT(m.python_full_version, Optional(py->version_str()));
  EXPECT_THAT(m.implementation_version, Optional(py->version_str()));
  EXPECT_THAT(m.python_version,
              Optional(std::to_string(py->major) + "." + std::to_string(py->minor)));
}

TEST(InterpreterFacts, RealTagFactsGivePipsList) {
  ASSERT_FALSE(real_answer().empty());
  auto py = parse_interpreter_facts(real_answer(), {FLASHFIT_TEST_PYTHON, "--python"});
  ASSERT_TRUE(py) << util::render(py.error());
  const auto expected = pip_compatible_tags();
  ASSERT_GT(expected.size(), 100u) << "pip debug --verbose listed no tags";
  const auto tags = strings(pkg::supported_tags(py->tag_facts, pkg::TagRules::pip_packaging_21_3));
  EXPECT_EQ(tags, expected);
  // CPython 3.11 on glibc 2.36 x86_64 (Debian 12) has 914.
  if (py->minor == 11 && py->tag_facts.glibc == pkg::LibcVersion{2, 36} &&
      py->tag_facts.platform == "linux-x86_64") {
    EXPECT_EQ(tags.size(), 914u);
  }
  const auto sys_tags = pkg::supported_tags(py->tag_facts, pkg::TagRules::packaging_21_3_sys_tags);
  EXPECT_EQ(sys_tags.size() + 1, tags.size());  // no cp311-none-any
}

TEST(InterpreterFacts, QueryRunsTheRealInterpreter) {
  auto py = query_interpreter({FLASHFIT_TEST_PYTHON, "--python"});
  ASSERT_TRUE(py) << util::render(py.error());
  EXPECT_EQ(py->implementation, "cpython");
  EXPECT_EQ(py->choice.found_by, "--python");

  auto failing = query_interpreter({"/bin/false", "--python"});
  ASSERT_FALSE(failing);
  EXPECT_EQ(failing.error().kind, ErrorKind::failed);
  EXPECT_THAT(failing.error().message, HasSubstr("exited with status 1"));
  EXPECT_THAT(failing.error().context, HasSubstr("/bin/false"));
}

// ---------------------------------------------------------------------------
// Answers that are not JSON objects, or lack what every answer must have

TEST(InterpreterFacts, NotAJsonObject) {
  const std::vector<std::string> answers = {"",
                                            "null",
                                            "[]",
                                            "42",
                                            "\"a string\"",
                                            "true",
                                            "{",
                                            "{\"version_info\": [3, 11",
                                            "{\"version_info\": [3, 11, 2, \"fin",
                                            "garbage, not JSON",
                                            "{} trailing",
                                            "\xff\xfe{}",
                                            "{\"executable\": \"\xff\"}",
                                            "{\"executable\": \"\\udcff\"}",
                                            std::string(100000, '[')};
  for (const auto& text : answers) {
    util::Result<Interpreter> py;
    EXPECT_NO_THROW(py = parse_interpreter_facts(text, kChoice)) << util::printable(text, 60);
    ASSERT_FALSE(py) << util::printable(text, 60);
    EXPECT_EQ(py.error().kind, ErrorKind::failed);
    EXPECT_THAT(py.error().message, HasSubstr("not a JSON object")) << util::printable(text, 60);
    EXPECT_EQ(py.error().context, "interpreter /opt/fake/bin/python3");
    EXPECT_FALSE(py.error().hint.empty());
  }
}

TEST(InterpreterFacts, GarbageIsQuotedEscapedAndCut) {
  auto py = parse_interpreter_facts("\x1b[31mhello\n" + std::string(10000, 'x'), kChoice);
  ASSERT_FALSE(py);
  EXPECT_THAT(py.error().message, HasSubstr("'\\x1b[31mhello\\x0axxx"));
  EXPECT_LT(py.error().message.size(), 200u) << py.error().message;
  EXPECT_EQ(py.error().message.find('\x1b'), std::string::npos);
}

TEST(InterpreterFacts, DeeplyNestedValidJsonIsNotAnObject) {
  const std::string text = std::string(1000000, '[') + std::string(1000000, ']');
  util::Result<Interpreter> py;
  EXPECT_NO_THROW(py = parse_interpreter_facts(text, kChoice));
  ASSERT_FALSE(py);
  EXPECT_THAT(py.error().message, HasSubstr("not a JSON object"));
}

TEST(InterpreterFacts, NoUsableVersionInfo) {
  const std::vector<json> infos = {
      nullptr,
      "3.11.2",
      json::array(),
      {3, 11},
      {3, 11, 2},
      {"3", "11", "2", "final", 0},
      {3.0, 11, 2, "final", 0},
      {3, 11.5, 2, "final", 0},
      {json::array({3}), 11, 2, "final", 0},
      {3, nullptr, 2, "final", 0},
      {true, 11, 2, "final", 0},
      json::object({{"major", 3}}),
      {1e300, 11, 2, "final", 0},
  };
  for (const auto& info : infos) {
    auto doc = minimal();
    doc["version_info"] = info;
    util::Result<Interpreter> py;
    EXPECT_NO_THROW(py = parse(doc)) << info.dump();
    ASSERT_FALSE(py) << info.dump();
    EXPECT_EQ(py.error().kind, ErrorKind::failed);
    EXPECT_THAT(py.error().message, HasSubstr("no usable version_info")) << info.dump();
  }
  auto doc = minimal();
  doc.erase("version_info");
  auto py = parse(doc);
  ASSERT_FALSE(py);
  EXPECT_THAT(py.error().message, HasSubstr("no usable version_info"));
  // A float too large for any integer is not a version either.
  py = parse_interpreter_facts(
      R"({"version_info": [99999999999999999999999, 11, 2, "final", 0], "implementation": "cpython",
          "sysconfig_platform": "linux-x86_64"})",
      kChoice);
  ASSERT_FALSE(py);
  EXPECT_THAT(py.error().message, HasSubstr("no usable version_info"));
}

TEST(InterpreterFacts, UnsupportedVersionsAreNamedPrecisely) {
  struct Case {
    std::string info;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"[2, 7, 18, \"final\", 0]", "Python 2.7.18 is not supported"},
      {"[4, 0, 0, \"final\", 0]", "Python 4.0.0 is not supported"},
      // Would narrow to 3 (and 11) in an int.
      {"[4294967299, 11, 2, \"final\", 0]", "Python 4294967299.11.2 is not supported"},
      {"[3, 4294967307, 2, \"final\", 0]", "Python 3.4294967307.2 is not supported"},
      {"[3, 11, 4294967298, \"final\", 0]", "Python 3.11.4294967298 is not supported"},
      {"[18446744073709551615, 11, 2, \"final\", 0]",
       "Python 18446744073709551615.11.2 is not supported"},
      {"[-3, 11, 2, \"final\", 0]", "Python -3.11.2 is not supported"},
      {"[3, -1, 0, \"final\", 0]", "Python 3.-1.0 is not supported"},
      {"[3, 1001, 0, \"final\", 0]", "Python 3.1001.0 is not supported"},
      {"[3, 11, -2, \"final\", 0]", "Python 3.11.-2 is not supported"},
  };
  for (const auto& c : cases) {
    // Reported even when nothing else is in the answer: the version is the first thing wrong.
    for (const bool full : {false, true}) {
      const std::string text =
          "{\"version_info\": " + c.info +
          (full ? R"(, "implementation": "cpython", "sysconfig_platform": "linux-x86_64"})" : "}");
      util::Result<Interpreter> py;
      EXPECT_NO_THROW(py = parse_interpreter_facts(text, kChoice)) << text;
      ASSERT_FALSE(py) << text;
      EXPECT_EQ(py.error().kind, ErrorKind::failed);
      EXPECT_EQ(py.error().message, c.message);
      EXPECT_EQ(py.error().hint, "flashfit works with Python 3 interpreters");
    }
  }
  // The edges that are fine.
  for (const auto& info :
       {json{3, 0, 0, "final", 0}, json{3, 1000, 1000000, "alpha", 1}, json{3, 11, 2, 5, 0}}) {
    auto doc = minimal();
    doc["version_info"] = info;
    auto py = parse(doc);
    ASSERT_TRUE(py) << info.dump() << ": " << util::render(py.error());
  }
}

TEST(InterpreterFacts, LacksImplementationOrPlatform) {
  for (const char* key : {"implementation", "sysconfig_platform"}) {
    for (const json& junk : {json(), json(3), json::array({"linux"}), json::object(), json(true)}) {
      auto doc = minimal();
      doc[key] = junk;
      auto py = parse(doc);
      ASSERT_FALSE(py) << key << " = " << junk.dump();
      EXPECT_THAT(py.error().message, HasSubstr("lacks the implementation or platform"));
    }
    auto doc = minimal();
    doc.erase(key);
    auto py = parse(doc);
    ASSERT_FALSE(py) << "without " << key;
    EXPECT_THAT(py.error().message, HasSubstr("lacks the implementation or platform"));
  }
}

// ---------------------------------------------------------------------------
// Junk in the optional facts reads as absent, never as a throw

const std::vector<json>& junk_values() {
  static const std::vector<json> values = {
      nullptr,
      true,
      false,
      -1,
      0,
      json(18446744073709551615ULL),
      json(4294967299LL),
      1e300,
      -0.5,
      "",
      "x",
      "\x1b[31m",
      json::array(),
      json::object(),
      json::array({json::array({json::array()})}),
      json::object({{"a", json::object({{"b", json::array({1})}})}}),
      json::array({"_d.pyd", 1, nullptr}),
  };
  return values;
}

bool required(const std::string& key) {
  return key == "version_info" || key == "implementation" || key == "sysconfig_platform";
}

void expect_absent_not_thrown(const json& doc, const std::string& where) {
  util::Result<Interpreter> py;
  ASSERT_NO_THROW(py = parse(doc)) << where;
  ASSERT_TRUE(py) << where << ": " << util::render(py.error());
  std::vector<pkg::Tag> tags;
  ASSERT_NO_THROW(tags = pkg::supported_tags(py->tag_facts)) << where;
  EXPECT_LT(tags.size(), 200000u) << where;
  EXPECT_NO_THROW((void)py->version_str());
}

TEST(InterpreterFacts, JunkInAnyOptionalTopLevelFact) {
  ASSERT_FALSE(real_answer().empty());
  const json base = real_doc();
  ASSERT_TRUE(base.is_object());
  ASSERT_GT(base.size(), 15u);
  for (const auto& [key, value] : base.items()) {
    if (required(key)) continue;
    for (const auto& junk : junk_values()) {
      json doc = base;
      doc[key] = junk;
      expect_absent_not_thrown(doc, key + " = " + junk.dump());
    }
    json doc = base;
    doc.erase(key);
    expect_absent_not_thrown(doc, "without " + key);
  }
}

TEST(InterpreterFacts, JunkInsideTheNestedFacts) {
  ASSERT_FALSE(real_answer().empty());
  const json base = real_doc();
  int nested = 0;
  for (const auto& [key, value] : base.items()) {
    if (!value.is_object()) continue;
    for (const auto& [inner, unused] : value.items()) {
      ++nested;
      for (const auto& junk : junk_values()) {
        json doc = base;
        doc[key][inner] = junk;
        expect_absent_not_thrown(doc, key + "." + inner + " = " + junk.dump());
      }
    }
  }
  EXPECT_GT(nested, 20);  // config_vars, markers, paths, elf
}

TEST(InterpreterFacts, WrongTypesReadAsAbsent) {
  auto doc = minimal();
  doc["executable"] = 5;
  doc["realpath"] = json::array();
  doc["site_dirs"] = "yes";
  doc["paths"] = "not an object";
  doc["config_vars"] = json::array({1, 2});
  doc["markers"] = json{{"os_name", 5}, {"sys_platform", "linux"}, {"extra", "x"}};
  doc["glibc"] = 2.36;
  doc["is_32bit"] = "true";
  doc["maxunicode"] = "1114111";
  auto py = parse(doc);
  ASSERT_TRUE(py) << util::render(py.error());
  EXPECT_EQ(py->executable, kChoice.program);
  EXPECT_EQ(py->realpath, kChoice.program);
  EXPECT_FALSE(py->has_pip);
  EXPECT_EQ(py->purelib, "");
  EXPECT_FALSE(py->soabi.has_value());
  EXPECT_FALSE(py->tag_facts.py_version_nodot.has_value());
  EXPECT_FALSE(py->tag_facts.py_debug.has_value());
  EXPECT_FALSE(py->markers.os_name.has_value());
  EXPECT_THAT(py->markers.sys_platform, Optional(std::string("linux")));
  EXPECT_FALSE(py->markers.extra.has_value());  // the script never sets it
  EXPECT_FALSE(py->tag_facts.glibc.has_value());
  EXPECT_FALSE(py->tag_facts.is_32bit);
  EXPECT_TRUE(py->tag_facts.max_unicode_is_ucs4);
  EXPECT_EQ(py->tag_facts.system, "");
}

TEST(InterpreterFacts, ConfigVarsReadAsPythonWouldSeeThem) {
  auto doc = minimal();
  doc["config_vars"] = {{"py_version_nodot", 311}, {"Py_DEBUG", ""},  {"WITH_PYMALLOC", "1"},
                        {"SOABI", nullptr},        {"EXT_SUFFIX", 7}, {"Py_GIL_DISABLED", 1},
                        {"Py_UNICODE_SIZE", 4}};
  // has_pip is read from the file system: a site dir holding pip/__init__.py.
  doc["site_dirs"] = {"/usr/lib/python3/dist-packages", 5, nullptr};
  doc["extension_suffixes"] = {1, nullptr, ".so", "_d.pyd"};
  doc["manylinux_vetoed"] = {json::array({2}),
                             "x",
                             json::array({2, "17"}),
                             json::array({2, 4294967312LL}),
                             json::array({2, -5}),
                             json::array({2, 17}),
                             nullptr,
                             json::array({2, 5, 1})};
  auto py = parse(doc);
  ASSERT_TRUE(py) << util::render(py.error());
  EXPECT_THAT(py->tag_facts.py_version_nodot, Optional(std::string("311")));
  EXPECT_THAT(py->tag_facts.py_debug, Optional(false));  // "" is falsy
  EXPECT_THAT(py->tag_facts.with_pymalloc, Optional(true));
  EXPECT_FALSE(py->soabi.has_value());
  EXPECT_THAT(py->ext_suffix, Optional(std::string("7")));
  EXPECT_TRUE(py->tag_facts.gil_disabled);
  EXPECT_THAT(py->tag_facts.py_unicode_size, Optional(4));
  EXPECT_TRUE(py->has_pip);
  EXPECT_TRUE(py->tag_facts.has_d_pyd_suffix);
  // Only the well-formed pair; 4294967312 must not narrow to 16.
  ASSERT_EQ(py->tag_facts.manylinux_vetoed.size(), 1u);
  EXPECT_EQ(py->tag_facts.manylinux_vetoed[0], (pkg::LibcVersion{2, 17}));
}

// ---------------------------------------------------------------------------
// libc versions

TEST(InterpreterFacts, LibcVersionStrings) {
  struct Case {
    std::string text;
    std::optional<pkg::LibcVersion> expected;
  };
  const std::vector<Case> cases = {
      {"2.36", pkg::LibcVersion{2, 36}},
      {"2.36.1", pkg::LibcVersion{2, 36}},  // packaging reads major.minor only
      {"2.36abc", pkg::LibcVersion{2, 36}},
      {"2.0", pkg::LibcVersion{2, 0}},
      {"1.2.3.4", pkg::LibcVersion{1, 2}},
      {"99.999", pkg::LibcVersion{99, 999}},
      {"", std::nullopt},
      {"2", std::nullopt},
      {"2.", std::nullopt},
      {".36", std::nullopt},
      {"x.y", std::nullopt},
      {"2..36", std::nullopt},
      {" 2.36", std::nullopt},
      {"-2.36", std::nullopt},
      {"2.-36", std::nullopt},
      {"2x.36", std::nullopt},
      {"99999999999.1", std::nullopt},
      {"2.99999999999", std::nullopt},
      // Implausible: every version below would become a tag (999.0: 1.2 million).
      {"100.0", std::nullopt},
      {"999.0", std::nullopt},
      {"2.1000", std::nullopt},
      {"\xd9\xa2.\xd9\xa3\xd9\xa6", std::nullopt},  // Arabic-Indic digits
  };
  for (const char* key : {"glibc", "musl"}) {
    for (const auto& c : cases) {
      auto doc = minimal();
      doc["markers"] = {{"platform_system", "Linux"}};
      doc[key] = c.text;
      util::Result<Interpreter> py;
      ASSERT_NO_THROW(py = parse_interpreter_facts(doc.dump(), kChoice)) << c.text;
      ASSERT_TRUE(py) << c.text;
      const auto& got = std::string(key) == "glibc" ? py->tag_facts.glibc : py->tag_facts.musl;
      EXPECT_EQ(got, c.expected) << key << " '" << util::printable(c.text) << "'";
      std::vector<pkg::Tag> tags;
      ASSERT_NO_THROW(tags = pkg::supported_tags(py->tag_facts));
      EXPECT_LT(tags.size(), 200000u) << key << " '" << c.text << "'";
    }
  }
}

// ---------------------------------------------------------------------------
// choose_interpreter, against real files

// The shared temp dir, plus the file and directory makers these tests use.
class TempDir : public flashfit::test::TempDir {
 public:
  TempDir() : flashfit::test::TempDir("interp") {}
  std::string operator/(const std::string& rel) const { return (path() / rel).string(); }

  // A file at `rel` (directories made), with `mode`.
  std::string file(const std::string& rel, mode_t mode = 0755) const {
    const fs::path p = path() / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "#!/bin/sh\nexit 0\n";
    ::chmod(p.c_str(), mode);
    return p.string();
  }
  std::string dir(const std::string& rel) const {
    fs::create_directories(path() / rel);
    return (path() / rel).string();
  }
};

using flashfit::test::InDirectory;

TEST(ChooseInterpreter, EmptyOptionIsAUsageError) {
  auto choice = choose_interpreter(std::string(), std::nullopt, "/usr/bin:/bin");
  ASSERT_FALSE(choice);
  EXPECT_EQ(choice.error().kind, ErrorKind::usage);
  EXPECT_THAT(choice.error().message, HasSubstr("--python"));
}

TEST(ChooseInterpreter, OptionPathThatIsNoExecutable) {
  TempDir tmp;
  const std::vector<std::string> bad = {tmp / "missing/python3", tmp.dir("a-directory"),
                                        tmp.file("plain/python3", 0644),
                                        tmp.file("no-perms/python3", 0)};
  for (const auto& path : bad) {
    auto choice = choose_interpreter(path, std::nullopt, "/usr/bin:/bin");
    ASSERT_FALSE(choice) << path;
    EXPECT_EQ(choice.error().kind, ErrorKind::input) << path;
    EXPECT_EQ(choice.error().context, "--python");
    EXPECT_THAT(choice.error().message, HasSubstr("no executable interpreter at '" + path + "'"));
    EXPECT_THAT(choice.error().hint, HasSubstr("--python"));
  }
}

TEST(ChooseInterpreter, OptionNameIsLookedUpOnPath) {
  TempDir tmp;
  tmp.dir("a");
  const auto found = tmp.file("b/mypython");
  auto choice =
      choose_interpreter(std::string("mypython"), std::nullopt, tmp / "a" + ":" + tmp / "b");
  ASSERT_TRUE(choice) << util::render(choice.error());
  EXPECT_EQ(choice->program, found);
  EXPECT_EQ(choice->found_by, "--python");

  auto missing = choose_interpreter(std::string("no-such-python"), std::nullopt, tmp / "b");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::input);
  EXPECT_EQ(missing.error().message, "'no-such-python' is not on PATH");
  EXPECT_EQ(missing.error().context, "--python");
}

TEST(ChooseInterpreter, VirtualEnvIsUsedAsIs) {
  TempDir tmp;
  tmp.file("path/python3");
  // A venv's bin/python is a symlink; resolving it would lose the venv.
  tmp.dir("venv/bin");
  fs::create_symlink(FLASHFIT_TEST_PYTHON, tmp.path() / "venv/bin/python");
  auto choice = choose_interpreter(std::nullopt, tmp / "venv", tmp / "path");
  ASSERT_TRUE(choice) << util::render(choice.error());
  EXPECT_EQ(choice->program, tmp / "venv/bin/python");
  EXPECT_EQ(choice->found_by, "$VIRTUAL_ENV");
}

TEST(ChooseInterpreter, StaleVirtualEnvIsAnErrorNotAFallback) {
  TempDir tmp;
  tmp.file("path/python3");
  tmp.dir("gone/bin");
  tmp.file("noexec/bin/python", 0644);
  for (const auto& venv : {tmp / "gone", tmp / "noexec", tmp / "never-existed"}) {
    auto choice = choose_interpreter(std::nullopt, venv, tmp / "path");
    ASSERT_FALSE(choice) << venv;
    EXPECT_EQ(choice.error().kind, ErrorKind::input);
    EXPECT_EQ(choice.error().context, "$VIRTUAL_ENV");
    EXPECT_THAT(choice.error().message, HasSubstr("$VIRTUAL_ENV is '" + venv + "'"));
    EXPECT_THAT(choice.error().message, HasSubstr("no bin/python"));
    EXPECT_THAT(choice.error().hint, HasSubstr("--python"));
  }
}

TEST(ChooseInterpreter, PathSearchSkipsWhatCannotRun) {
  TempDir tmp;
  tmp.file("a/python3", 0644);
  tmp.dir("b/python3");
  fs::create_directories(tmp.path() / "c");
  fs::create_symlink(tmp.path() / "nowhere", tmp.path() / "c/python3");
  const auto good = tmp.file("d/python3");
  tmp.file("e/python3");
  const std::string path =
      tmp / "a" + "::" + tmp / "b" + ":" + tmp / "c" + ":" + tmp / "d" + ":" + tmp / "e";
  // (the empty entry is the working directory, which has no python3)
  InDirectory in(tmp.path());
  auto choice = choose_interpreter(std::nullopt, std::nullopt, path);
  ASSERT_TRUE(choice) << util::render(choice.error());
  EXPECT_EQ(choice->program, good);
  EXPECT_EQ(choice->found_by, "PATH");

  auto none = choose_interpreter(std::nullopt, std::nullopt, tmp / "a" + ":" + tmp / "b");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, ErrorKind::input);
  EXPECT_EQ(none.error().message, "'python3' is not on PATH");
  EXPECT_EQ(none.error().context, "PATH");
}

TEST(ChooseInterpreter, PrecedenceOptionThenVirtualEnvThenPath) {
  TempDir tmp;
  const auto option = tmp.file("opt/python3");
  const auto venv_python = tmp.file("venv/bin/python");
  const auto path_python = tmp.file("path/python3");
  tmp.dir("stale");

  auto c1 = choose_interpreter(option, tmp / "venv", tmp / "path");
  ASSERT_TRUE(c1);
  EXPECT_EQ(c1->program, option);
  EXPECT_EQ(c1->found_by, "--python");
  // --python wins even over a stale environment, which is then not an error.
  auto c2 = choose_interpreter(option, tmp / "stale", tmp / "path");
  ASSERT_TRUE(c2);
  EXPECT_EQ(c2->found_by, "--python");
  auto c3 = choose_interpreter(std::nullopt, tmp / "venv", tmp / "path");
  ASSERT_TRUE(c3);
  EXPECT_EQ(c3->program, venv_python);
  EXPECT_EQ(c3->found_by, "$VIRTUAL_ENV");
  // An empty VIRTUAL_ENV is no environment.
  auto c4 = choose_interpreter(std::nullopt, std::string(), tmp / "path");
  ASSERT_TRUE(c4);
  EXPECT_EQ(c4->program, path_python);
  EXPECT_EQ(c4->found_by, "PATH");
  auto c5 = choose_interpreter(std::nullopt, std::nullopt, tmp / "path");
  ASSERT_TRUE(c5);
  EXPECT_EQ(c5->program, path_python);
}

// The query runs from "/", so every relative spelling must come back absolute.
TEST(ChooseInterpreter, RelativePathsBecomeAbsolute) {
  TempDir tmp;
  const auto bin_python = tmp.file("bin/python3");
  const auto cwd_python = tmp.file("python3");
  const auto venv_python = tmp.file("venv/bin/python");
  InDirectory in(tmp.path());

  auto option = choose_interpreter(std::string("./bin/python3"), std::nullopt, "");
  ASSERT_TRUE(option) << util::render(option.error());
  EXPECT_EQ(option->program, bin_python);
  auto option2 = choose_interpreter(std::string("bin/python3"), std::nullopt, "");
  ASSERT_TRUE(option2);
  EXPECT_EQ(option2->program, bin_python);
  auto path_entry = choose_interpreter(std::nullopt, std::nullopt, "bin");
  ASSERT_TRUE(path_entry);
  EXPECT_EQ(path_entry->program, bin_python);
  // An empty PATH entry means the working directory, as in execvp.
  auto empty_entry = choose_interpreter(std::nullopt, std::nullopt, "/nonexistent::");
  ASSERT_TRUE(empty_entry);
  EXPECT_EQ(empty_entry->program, cwd_python);
  auto venv = choose_interpreter(std::nullopt, std::string("venv"), "");
  ASSERT_TRUE(venv);
  EXPECT_EQ(venv->program, venv_python);
  auto dotted = choose_interpreter(std::nullopt, std::string("./venv/."), "");
  ASSERT_TRUE(dotted);
  EXPECT_EQ(dotted->program, venv_python);
}

// With no PATH at all, execvp searches its default path; so does flashfit,
// and it does not fall back to the working directory.
TEST(ChooseInterpreter, UnsetPathIsNotTheWorkingDirectory) {
  TempDir tmp;
  const auto cwd_python = tmp.file("python3");
  InDirectory in(tmp.path());
  auto choice = choose_interpreter(std::nullopt, std::nullopt, std::nullopt);
  if (choice) {
    EXPECT_NE(choice->program, cwd_python);
    EXPECT_TRUE(choice->program == "/bin/python3" || choice->program == "/usr/bin/python3")
        << choice->program;
  } else {
    EXPECT_EQ(choice.error().message, "'python3' is not on PATH");
  }
}

}  // namespace
}  // namespace flashfit::env
