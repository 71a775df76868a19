// PrettyJson must print exactly what nlohmann's dump(2) prints for the same
// value: resolve --json streams its candidates with it into a dumped object.
#include "cli/pretty_json.hpp"

#include <gtest/gtest.h>

namespace flashfit::cli {
namespace {

using nlohmann::json;

// Writes `v` through the writer's own calls (not value(json)), recursively.
void stream(PrettyJson& w, const json& v) {
  if (v.is_object()) {
    w.begin_object();
    for (const auto& [k, member] : v.items()) {
      w.key(k);
      stream(w, member);
    }
    w.end_object();
  } else if (v.is_array()) {
    w.begin_array();
    for (const json& e : v) stream(w, e);
    w.end_array();
  } else if (v.is_string()) {
    w.value(v.get<std::string>());
  } else if (v.is_boolean()) {
    w.value(v.get<bool>());
  } else if (v.is_null()) {
    w.null();
  } else {
    w.any(v);  // numbers go through nlohmann's own dumper
  }
}

const json& sample() {
  static const json v = {
      {"plain", "flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl"},
      {"escapes",
       "quote \" backslash \\ tab \t newline \n cr \r bs \b ff \f bell \x07 nul-free \x1f"
       " end"},
      {"utf8", "torch h\xc3\xa4r \xe2\x9c\x93"},
      {"empty_object", json::object()},
      {"empty_array", json::array()},
      {"nested",
       {{"a", json::array({json::object(), json::array(), "x", nullptr, true, false})},
        {"b", {{"c", {{"d", json::array({1, 2.5, -3})}}}}}}},
      {"flag", false},
      {"nothing", nullptr},
      {"count", 6290},
  };
  return v;
}

TEST(PrettyJson, StreamsExactlyWhatDumpPrints) {
  std::string out;
  PrettyJson w(out);
  stream(w, sample());
  EXPECT_EQ(out, sample().dump(2));
}

// nlohmann's dump throws on bytes that are not UTF-8; the writer replaces
// each with U+FFFD and keeps every well-formed sequence, so the output parses.
TEST(PrettyJson, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a\xff"
       "b",
       "a\uFFFDb"},                                      // never a UTF-8 byte
      {"\x80", "\uFFFD"},                                // a stray continuation byte
      {"\xc0\xaf", "\uFFFD\uFFFD"},                      // an overlong '/'
      {"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},            // a surrogate
      {"x\xe2\x9c", "x\uFFFD\uFFFD"},                    // truncated at the end
      {"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},  // past U+10FFFF
      {"\xf0\x9f\x98\x80 ok", "\U0001F600 ok"},          // a 4-byte sequence kept
  };
  for (const auto& [raw, expected] : cases) {
    std::string out;
    PrettyJson w(out);
    w.value(raw);
    // json::parse throws if the output is not valid UTF-8 JSON.
    EXPECT_EQ(json::parse(out).get<std::string>(), expected) << out;
  }
}

// Every byte below 0x80, alone, between plain text and doubled, escaped as
// dump escapes it: the writer appends plain runs whole and must break them at
// exactly the bytes dump escapes.
TEST(PrettyJson, EveryAsciiByteIsEscapedAsDumpEscapesIt) {
  for (int c = 0; c < 0x80; ++c) {
    const std::string byte(1, static_cast<char>(c));
    for (const std::string& text : {byte, "ab" + byte + "cd", byte + byte + "x" + byte}) {
      std::string out;
      PrettyJson w(out);
      w.value(text);
      EXPECT_EQ(out, json(text).dump(2)) << "byte " << c;
    }
  }
}

// Escapes, well-formed UTF-8 and bytes that are not UTF-8 next to each other:
// each run is cut and resumed at the right byte.
TEST(PrettyJson, EscapesAndUtf8SideBySide) {
  std::string out;
  PrettyJson w(out);
  w.value("\"\xc3\xa4\n\xff\"\xe2\x9c\x93\x01z\xc3");
  EXPECT_EQ(json::parse(out).get<std::string>(), "\"\xc3\xa4\n\uFFFD\"\xe2\x9c\x93\x01z\uFFFD");
  EXPECT_EQ(out, "\"\\\"\xc3\xa4\\n\xEF\xBF\xBD\\\"\xe2\x9c\x93\\u0001z\xEF\xBF\xBD\"");
}

// Deeper than the writer's precomputed indentation (32 levels), objects and
// arrays in turn, each with a sibling after it.
TEST(PrettyJson, DeepNestingIndentsAsDumpDoes) {
  json v = "leaf";
  for (int level = 0; level < 40; ++level) {
    v = level % 2 == 0 ? json{{"k", v}, {"after", level}} : json::array({v, level});
  }
  std::string out;
  PrettyJson w(out);
  stream(w, v);
  EXPECT_EQ(out, v.dump(2));
}

TEST(PrettyJson, TopLevelScalarsAndEmptyContainers) {
  for (const json& v : {json("a\"b"), json(true), json(nullptr), json::object(), json::array()}) {
    std::string out;
    PrettyJson w(out);
    stream(w, v);
    EXPECT_EQ(out, v.dump(2)) << v.dump();
  }
}

// Streamed at depth 1 into an object dumped with a placeholder, as resolve does.
TEST(PrettyJson, SplicedAtDepthOneMatchesTheWholeDump) {
  json whole = {{"candidates", json::array({sample(), sample()})}, {"z", 1}};
  json holder = {{"candidates", nullptr}, {"z", 1}};
  std::string part;
  PrettyJson w(part, 1);
  stream(w, whole["candidates"]);
  std::string text = holder.dump(2);
  const std::string slot = "\n  \"candidates\": null";
  std::size_t at = text.find(slot);
  ASSERT_NE(at, std::string::npos);
  text.replace(at + slot.size() - 4, 4, part);
  EXPECT_EQ(text, whole.dump(2));
}

TEST(PrettyJson, AnyValueIsReindentedToItsDepth) {
  json whole = {{"k", {{"inner", json::array({1, {{"x", "y"}}})}}}};
  std::string out;
  PrettyJson w(out);
  w.begin_object();
  w.key("k");
  w.any(whole["k"]);
  w.end_object();
  EXPECT_EQ(out, whole.dump(2));
}

}  // namespace
}  // namespace flashfit::cli
