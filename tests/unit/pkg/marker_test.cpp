// PEP 508 markers: parsing, printing and evaluation as packaging 23.0 does
// them (expected values checked against packaging 23.0 on the dev machine).
#include "pkg/marker.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace flashfit::pkg {
namespace {

using namespace std::literals;

// Debian 12's /usr/bin/python3 on x86_64, as default_environment() reports it.
MarkerEnvironment linux_cpython311() {
  MarkerEnvironment env;
  env.implementation_name = "cpython";
  env.implementation_version = "3.11.2";
  env.os_name = "posix";
  env.platform_machine = "x86_64";
  env.platform_python_implementation = "CPython";
  env.platform_release = "6.1.0-18-amd64";
  env.platform_system = "Linux";
  env.platform_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)";
  env.python_full_version = "3.11.2";
  env.python_version = "3.11";
  env.sys_platform = "linux";
  return env;
}

std::string str(std::string_view text) {
  auto marker = Marker::parse(text);
  EXPECT_TRUE(marker) << text << ": " << marker.error().message;
  return marker ? marker->str() : "";
}

std::string error_of(std::string_view text) {
  auto marker = Marker::parse(text);
  if (marker) return "parsed as " + marker->str();
  EXPECT_EQ(marker.error().kind, util::ErrorKind::input);
  return marker.error().message;
}

// "True", "False", or the evaluation error's message.
std::string eval(std::string_view text, const MarkerEnvironment& env = linux_cpython311()) {
  auto marker = Marker::parse(text);
  if (!marker) return "parse error: " + marker.error().message;
  auto result = marker->evaluate(env);
  if (!result) return result.error().message;
  return *result ? "True" : "False";
}

TEST(marker, PrintsInPackagingsNormalForm) {
  EXPECT_EQ(str("python_version>='3.9'"), "python_version >= \"3.9\"");
  EXPECT_EQ(str("  os.name\t==\t\"posix\"  "), "os_name == \"posix\"");
  EXPECT_EQ(str("sys.platform == 'linux'"), "sys_platform == \"linux\"");
  EXPECT_EQ(str("platform.machine == 'x86_64'"), "platform_machine == \"x86_64\"");
  EXPECT_EQ(str("platform.version == '1'"), "platform_version == \"1\"");
  EXPECT_EQ(str("python_implementation == 'CPython'"),
            "platform_python_implementation == \"CPython\"");
  EXPECT_EQ(str("platform.python_implementation == 'CPython'"),
            "platform_python_implementation == \"CPython\"");
  EXPECT_EQ(str("'a' not  in os_name"), "\"a\" not in os_name");
  EXPECT_EQ(str("'a' not\tin os_name"), "\"a\" not in os_name");
  EXPECT_EQ(str("os_name=='a'or os_name=='b'"), "os_name == \"a\" or os_name == \"b\"");
  EXPECT_EQ(str("os_name == 'a\"b'"), "os_name == \"a\"b\"");  // no escaping, as packaging
  EXPECT_EQ(str("python_version === 'x'"), "python_version === \"x\"");
  EXPECT_EQ(str("python_version == python_full_version"), "python_version == python_full_version");
}

TEST(marker, PrintsParenthesesAsPackagingDoes) {
  EXPECT_EQ(str("((os_name == 'a'))"), "os_name == \"a\"");
  EXPECT_EQ(str("(os_name == 'a') and (os_name == 'b')"), "os_name == \"a\" and os_name == \"b\"");
  EXPECT_EQ(str("os_name == 'a' and (os_name == 'b' or os_name == 'c')"),
            "os_name == \"a\" and (os_name == \"b\" or os_name == \"c\")");
  // packaging prints a group holding one group without parentheses, which
  // changes its meaning; str() must match packaging, evaluation does not change.
  EXPECT_EQ(str("os_name == 'x' and ((os_name == 'y' or os_name == 'z'))"),
            "os_name == \"x\" and os_name == \"y\" or os_name == \"z\"");
  EXPECT_EQ(eval("os_name == 'x' and ((os_name == 'y' or os_name == 'posix'))"), "False");
}

TEST(marker, DecodesPythonStringEscapes) {
  EXPECT_EQ(str("os_name == '\\x70osix'"), "os_name == \"posix\"");
  EXPECT_EQ(str("os_name == '\\101\\x42\\u0043\\U00000044\\q\\8'"),
            "os_name == \"ABCD\\q\\8\"");  // unknown escapes keep their backslash
  EXPECT_EQ(str("os_name == '\\777\\u00e9'"), "os_name == \"\xc7\xbf\xc3\xa9\"");
  EXPECT_EQ(str("os_name == '\\\\\\\"'"), "os_name == \"\\\"\"");  // '\\\"' is \"
  EXPECT_EQ(str("os_name == \"\\'\""), "os_name == \"'\"");
  EXPECT_EQ(str("os_name == '\\t\\n'"), "os_name == \"\t\n\"");
  EXPECT_EQ(eval("os_name == '\\x70osix'"), "True");
}

TEST(marker, NormalisesExtraOnlyWherePackagingDoes) {
  // _normalize_extra_values touches the first comparison of the outermost group only.
  EXPECT_EQ(str("extra == 'Foo_Bar'"), "extra == \"foo-bar\"");
  EXPECT_EQ(str("'Foo..Bar' == extra"), "\"foo-bar\" == extra");
  EXPECT_EQ(str("os_name == 'a' and extra == 'Foo_Bar'"),
            "os_name == \"a\" and extra == \"Foo_Bar\"");
  EXPECT_EQ(str("(extra == 'Foo_Bar')"), "extra == \"Foo_Bar\"");
  // ... and turns a variable on the other side into a string.
  EXPECT_EQ(str("python_version == extra"), "\"python-version\" == extra");
  EXPECT_EQ(str("extra == python_version"), "extra == \"python-version\"");
}

TEST(marker, EvaluatesVersionComparisons) {
  EXPECT_EQ(eval("python_version >= '3.9'"), "True");
  EXPECT_EQ(eval("python_version < '3.11'"), "False");
  EXPECT_EQ(eval("python_version == '3.11.*'"), "True");
  EXPECT_EQ(eval("python_version ~= '3.10'"), "True");
  EXPECT_EQ(eval("python_version === '3.11'"), "True");
  EXPECT_EQ(eval("python_version == ' 3.11'"), "True");  // a specifier may hold spaces
  EXPECT_EQ(eval("python_full_version < '3.11.3'"), "True");
  EXPECT_EQ(eval("implementation_version == '3.11.2'"), "True");
  EXPECT_EQ(eval("platform_release == '6.1.0-18-amd64'"), "True");  // not a version: strings
  auto rc = linux_cpython311();
  rc.python_full_version = "3.12.0rc1";
  EXPECT_EQ(eval("python_full_version > '3.11'", rc), "True");  // pre-releases are allowed
  EXPECT_EQ(eval("python_full_version >= '3.12'", rc), "False");
}

TEST(marker, EvaluatesStringComparisons) {
  EXPECT_EQ(eval("sys_platform == 'linux'"), "True");
  EXPECT_EQ(eval("'lin' in sys_platform"), "True");
  EXPECT_EQ(eval("os_name not in 'nt'"), "True");
  EXPECT_EQ(eval("platform_machine < 'y'"), "True");
  EXPECT_EQ(eval("platform_machine >= 'x86_64'"), "True");
  EXPECT_EQ(eval("platform_machine <= 'x86'"), "False");
  EXPECT_EQ(eval("platform_system != 'Windows'"), "True");
  EXPECT_EQ(eval("platform_system > 'Linux'"), "False");
  EXPECT_EQ(eval("'SMP' in platform_version"), "True");
  EXPECT_EQ(eval("platform_version in '#1 SMP'"), "False");
  EXPECT_EQ(eval("implementation_name == 'cpython'"), "True");
  EXPECT_EQ(eval("platform_python_implementation == 'CPython'"), "True");
  EXPECT_EQ(eval("python_version in '3.10 3.11'"), "True");  // `in` never compares versions
  EXPECT_EQ(eval("'3.8' < python_version"), "True");         // a version comparison
  auto env = linux_cpython311();
  env.platform_machine = "\xc3\xa9";  // code point order, as Python compares strings
  EXPECT_EQ(eval("platform_machine < '\xe4\xb8\xad' and platform_machine > 'z'", env), "True");
}

TEST(marker, AndBindsTighterThanOr) {
  EXPECT_EQ(eval("os_name == 'posix' or os_name == 'nt' and sys_platform == 'win32'"), "True");
  EXPECT_EQ(eval("(os_name == 'posix' or os_name == 'nt') and sys_platform == 'win32'"), "False");
  EXPECT_EQ(eval("os_name == 'nt' and sys_platform == 'win32' or python_version >= '3'"), "True");
  EXPECT_EQ(eval("os_name == 'nt' or sys_platform == 'win32' or python_version < '3'"), "False");
  EXPECT_EQ(eval("os_name == 'posix' and (sys_platform == 'win32' or (python_version >= '3'))"),
            "True");
}

TEST(marker, EvaluatesExtrasNormalised) {
  auto env = linux_cpython311();
  EXPECT_EQ(eval("extra == ''", env), "True");  // unset reads as ""
  EXPECT_EQ(eval("extra == 'test'", env), "False");
  env.extra = "Foo.Bar";
  EXPECT_EQ(eval("extra == 'foo-bar'", env), "True");
  EXPECT_EQ(eval("os_name == 'posix' and extra == 'FOO__BAR'", env), "True");
  env.extra = "python.version";
  EXPECT_EQ(eval("python_version == extra", env), "True");
}

TEST(marker, EvaluationErrorsMatchPackaging) {
  // A right side that parses as a specifier demands a version on the left.
  EXPECT_EQ(eval("os_name == '1.0'"),
            "cannot evaluate `os_name == \"1.0\"`: \"posix\" is not a valid version, and "
            "\"==1.0\" makes this a version comparison");
  EXPECT_EQ(eval("platform_release >= '6'"),
            "cannot evaluate `platform_release >= \"6\"`: \"6.1.0-18-amd64\" is not a valid "
            "version, and \">=6\" makes this a version comparison");
  EXPECT_EQ(eval("os_name === 'posix'"),
            "cannot evaluate `os_name === \"posix\"`: \"posix\" is not a valid version, and "
            "\"===posix\" makes this a version comparison");
  EXPECT_EQ(eval("os_name ~= 'posix'"),
            "cannot evaluate `os_name ~= \"posix\"`: '~=' needs a version on the right, and "
            "\"posix\" is not one");
  // With a string on the left, packaging reads the right side as the variable's name.
  EXPECT_EQ(eval("'3.8' < 'python_version'"), "True");
  EXPECT_EQ(eval("'a' == 'b'"), "cannot evaluate `\"a\" == \"b\"`: \"b\" is not a marker variable");
  // Every comparison is evaluated, so an error fails even a marker already true.
  EXPECT_EQ(eval("python_version > '3' or 'a' == 'b'"),
            "cannot evaluate `\"a\" == \"b\"`: \"b\" is not a marker variable");
  MarkerEnvironment empty;
  EXPECT_EQ(eval("python_version >= '3.9'", empty),
            "cannot evaluate `python_version >= \"3.9\"`: the environment does not set "
            "python_version");
  auto result = Marker::parse("os_name == 'a' or 'a' == 'b'")->evaluate(linux_cpython311());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().context, "marker 'os_name == \"a\" or \"a\" == \"b\"'");
}

TEST(marker, RejectsBadInput) {
  EXPECT_EQ(error_of(""),
            "expected a marker variable or a quoted string at column 1, found end "
            "of input");
  EXPECT_EQ(error_of("python_version <"),
            "expected a marker variable or a quoted string at column 17, found end of input");
  EXPECT_EQ(error_of("python_version"),
            "expected a marker operator (one of <=, <, !=, ==, >=, >, ~=, ===, in, not in) at "
            "column 15, found end of input");
  EXPECT_EQ(error_of("python_version = '3'"),
            "expected a marker operator (one of <=, <, !=, ==, >=, >, ~=, ===, in, not in) at "
            "column 16, found '='");
  EXPECT_EQ(error_of("os_name not 'a'"), "expected 'in' after 'not' at column 13, found ''a''");
  EXPECT_EQ(error_of("os_name not'a'"),
            "expected whitespace after 'not' at column 12, found ''a''");
  EXPECT_EQ(error_of("os_name notin 'a'"),
            "expected a marker operator (one of <=, <, !=, ==, >=, >, ~=, ===, in, not in) at "
            "column 9, found 'notin'");
  EXPECT_EQ(error_of("(os_name == 'a'"),
            "expected 'and', 'or' or ')' to close the '(' of column 1 at column 16, found end of "
            "input");
  EXPECT_EQ(error_of("os_name == 'a' and"),
            "expected a marker variable or a quoted string at column 19, found end of input");
  EXPECT_EQ(error_of("os_name == 'a' AND os_name == 'b'"),
            "expected 'and', 'or' or the end of the marker at column 16, found 'AND'");
  EXPECT_EQ(error_of("()"), "expected a marker variable or a quoted string at column 2, found ')'");
  EXPECT_EQ(error_of("os_name == 'posix"), "unterminated quoted string at column 12: no closing '");
  EXPECT_EQ(error_of("os_name == '\\x4'"),
            "invalid quoted string at column 13: truncated \\xXX escape: it needs 2 hex digits");
  EXPECT_EQ(error_of("os_name == '\\U00110000'"),
            "invalid quoted string at column 13: escape \\U00110000 is beyond the last Unicode "
            "code point");
  EXPECT_EQ(error_of("os_name == 'a\\'"),
            "invalid quoted string at column 14: it ends with a backslash, which escapes the "
            "closing quote");
  EXPECT_EQ(error_of("os_name == \"a\\\""),
            "invalid quoted string at column 14: it ends with a backslash, which escapes the "
            "closing quote");
  EXPECT_EQ(error_of("os_name == 'a\0'"sv),
            "invalid quoted string at column 14: a NUL character is not allowed");
  EXPECT_EQ(error_of("os_name\0 == 'a'"sv),
            "expected a marker operator (one of <=, <, !=, ==, >=, >, ~=, ===, in, not in) at "
            "column 8, found '\\x00'");
  EXPECT_EQ(error_of("os_name == '\xff'"), "invalid UTF-8 byte 0xff at column 13");
  EXPECT_EQ(error_of("\xc3\xa9 == 'a'"),
            "expected a marker variable or a quoted string at column 1, found '\\xc3\\xa9'");
}

TEST(marker, UnknownVariablesSuggestTheRightOne) {
  auto marker = Marker::parse("python_versio >= '3.9'");
  ASSERT_FALSE(marker);
  EXPECT_EQ(marker.error().message,
            "expected a marker variable or a quoted string at column 1, found 'python_versio'");
  EXPECT_EQ(marker.error().hint, "did you mean 'python_version'?");
  marker = Marker::parse("platform.release == '6'");  // packaging has no dotted spelling of it
  ASSERT_FALSE(marker);
  EXPECT_EQ(marker.error().hint, "did you mean 'platform_release'?");
  marker = Marker::parse("os_name == posix");
  ASSERT_FALSE(marker);
  EXPECT_EQ(marker.error().message,
            "expected a marker variable or a quoted string at column 12, found 'posix'");
  EXPECT_EQ(marker.error().hint.substr(0, 36), "string values need quotes (\"posix\");");
}

TEST(marker, OverLongInputIsLinearAndBounded) {
  std::string chain = "os_name == 'posix'";
  while (chain.size() < 100000) chain += " and python_version >= '3.9'";
  auto marker = Marker::parse(chain);
  ASSERT_TRUE(marker);
  EXPECT_EQ(marker->str().size(), chain.size());
  EXPECT_EQ(*marker->evaluate(linux_cpython311()), true);

  EXPECT_EQ(error_of(std::string(100000, '(')),
            "'(' at column 65 nests deeper than the 64 levels of parentheses flashfit allows");
  EXPECT_EQ(error_of("os_name == '" + std::string(100000, 'x')),
            "unterminated quoted string at column 12: no closing '");
}

TEST(marker, EnvironmentVariablesByName) {
  MarkerEnvironment env;
  ASSERT_NE(env.find("platform_machine"), nullptr);
  *env.find("platform_machine") = "aarch64";
  EXPECT_EQ(env.platform_machine, "aarch64");
  EXPECT_EQ(env.find("os.name"), nullptr);  // only canonical names
  EXPECT_EQ(env.find("python_implementation"), nullptr);
  EXPECT_EQ(MarkerEnvironment::variable_names().size(), 12u);
  for (const auto name : MarkerEnvironment::variable_names()) EXPECT_NE(env.find(name), nullptr);
}

// Inputs packaging 23.0 accepts and flashfit refuses on purpose.
TEST(marker, IntendedDifferencesFromPackaging) {
  // packaging's Marker() ignores what follows a complete marker.
  EXPECT_EQ(error_of("python_version > '3' garbage"),
            "expected 'and', 'or' or the end of the marker at column 22, found 'garbage'");
  EXPECT_EQ(error_of(std::string(65, '(') + "os_name == 'a'" + std::string(65, ')')),
            "'(' at column 65 nests deeper than the 64 levels of parentheses flashfit allows");
  EXPECT_EQ(error_of("extra == '\xc3\x89'"),
            "extra name \"\\xc3\\x89\" compared at column 1 is not ASCII");
  EXPECT_EQ(error_of("os_name == '\\N{LATIN SMALL LETTER A}'"),
            "invalid quoted string at column 13: named escapes (\\N{...}) are not supported in "
            "marker strings");
  EXPECT_EQ(error_of("os_name == '\\udfff'"),
            "invalid quoted string at column 13: escape \\udfff is a lone surrogate, which UTF-8 "
            "cannot hold");
  // Extra names from the environment are compared with ASCII case rules only.
  auto env = linux_cpython311();
  env.extra = "Caf\xc3\xa9";
  EXPECT_EQ(eval("extra == 'cafe'", env),
            "cannot evaluate `extra == \"cafe\"`: extra name \"Caf\\xc3\\xa9\" is not ASCII");
  // Version comparisons are ASCII: packaging's Unicode `\s` takes a no-break space.
  env = linux_cpython311();
  env.python_version = "3.11\xc2\xa0";
  EXPECT_EQ(eval("python_version >= '3.9'", env),
            "cannot evaluate `python_version >= \"3.9\"`: \"3.11\\xc2\\xa0\" is not a valid "
            "version, and \">=3.9\" makes this a version comparison");
}

}  // namespace
}  // namespace flashfit::pkg
