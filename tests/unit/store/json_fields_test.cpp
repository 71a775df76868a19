// The store's typed JSON field readers (store/json_fields.*): unknown is
// quiet, every wrong shape is a problem naming the key (with its prefix), and
// the first problem found is the one kept.
#include "store/json_fields.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace flashfit::store::detail {
namespace {

using nlohmann::json;

TEST(JsonFields, MissingAndNullFieldsAreUnknownWithoutAProblem) {
  const json doc = json::parse(R"({"a": null})");
  std::string problem;
  JsonFields f{doc, problem};
  EXPECT_FALSE(f.string("a"));
  EXPECT_FALSE(f.boolean("b"));
  EXPECT_FALSE(f.integer("c", 0, 9));
  EXPECT_TRUE(f.strings("d").empty());
  EXPECT_EQ(f.object_field("e"), nullptr);
  EXPECT_EQ(problem, "");
}

TEST(JsonFields, ARequiredStringThatIsAbsentIsMissing) {
  const json doc = json::object();
  std::string problem;
  JsonFields f{doc, problem, "torch."};
  EXPECT_EQ(f.required_string("version"), "");
  EXPECT_EQ(problem, "\"torch.version\" is missing");
}

TEST(JsonFields, WrongTypesNameTheKeyAndTheFirstProblemIsKept) {
  const json doc = json::parse(R"({"s": 1, "b": "yes", "l": ["x", 2], "o": []})");
  std::string problem;
  JsonFields f{doc, problem};
  EXPECT_FALSE(f.string("s"));
  EXPECT_EQ(problem, "\"s\" is not a string");
  EXPECT_FALSE(f.boolean("b"));
  EXPECT_TRUE(f.strings("l").empty());
  EXPECT_EQ(f.object_field("o"), nullptr);
  EXPECT_EQ(problem, "\"s\" is not a string");
}

TEST(JsonFields, EachWrongShapeHasItsOwnMessage) {
  const json doc = json::parse(R"({"b": "yes", "l": ["x", 2], "o": [], "i": 1.5})");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"b", "\"b\" is not true or false"},
      {"l", "\"l\" is not an array of strings"},
      {"o", "\"o\" is not an object"},
      {"i", "\"i\" is not an integer from 0 to 9"},
  };
  for (const auto& [key, want] : cases) {
    std::string problem;
    JsonFields f{doc, problem};
    if (key == "b") f.boolean("b");
    if (key == "l") f.strings("l");
    if (key == "o") f.object_field("o");
    if (key == "i") f.integer("i", 0, 9);
    EXPECT_EQ(problem, want) << key;
  }
}

TEST(JsonFields, IntegersOutsideTheRangeOrHugeAreRefused) {
  const json doc = json::parse(R"({"neg": -1, "big": 18446744073709551615, "ok": 7, "str": "7"})");
  std::string problem;
  JsonFields f{doc, problem};
  EXPECT_EQ(f.integer("ok", 0, 9), 7);
  EXPECT_EQ(problem, "");
  EXPECT_FALSE(f.integer("neg", 0, 9));
  EXPECT_EQ(problem, "\"neg\" is not an integer from 0 to 9");
  problem.clear();
  EXPECT_FALSE(f.integer("big", 0, 1000));
  EXPECT_NE(problem, "");
  problem.clear();
  EXPECT_FALSE(f.integer("str", 0, 9));
  EXPECT_NE(problem, "");
}

TEST(JsonFields, StringsLongerThanTheBoundAreRefused) {
  const json doc = json{{"s", std::string(11, 'x')}, {"l", json::array({std::string(11, 'y')})}};
  std::string problem;
  JsonFields f{doc, problem, "", 10};
  EXPECT_FALSE(f.string("s"));
  EXPECT_EQ(problem, "\"s\" is not a string (up to 10 bytes)");
  problem.clear();
  EXPECT_TRUE(f.strings("l").empty());
  EXPECT_EQ(problem, "\"l\" is not an array of strings");
  std::string unbounded_problem;
  JsonFields unbounded{doc, unbounded_problem};
  EXPECT_EQ(unbounded.string("s"), std::string(11, 'x'));
  EXPECT_EQ(unbounded_problem, "");
}

}  // namespace
}  // namespace flashfit::store::detail
