// The variant record's one reader and writer (store/variant_record.*): what
// publish writes reads back the same; hostile text (truncated, wrong types,
// huge numbers, another schema, a bad hash or file name, too large) is an
// error with a message, never a throw; keys it does not know are ignored.
#include "store/variant_record.hpp"

#include <gmock/gmock.h>

#include <nlohmann/json.hpp>

namespace flashfit::store {
namespace {

using ::testing::HasSubstr;

const std::string kSha(64, 'a');

VariantRecord sample() {
  VariantRecord r;
  r.filename = "ffext_abi1-0.1.0-cp311-cp311-linux_x86_64.whl";
  r.name = "ffext-abi1";
  r.version = "0.1.0";
  r.sha256 = kSha;
  r.size = 12345;
  r.metadata_sha256 = std::string(64, 'b');
  r.metadata_name = "ffext_abi1";
  r.requires_python = ">=3.8";
  r.python_tag = "cp311";
  r.platform = "linux_x86_64";
  r.torch_major = 2;
  r.torch_minor = 9;
  r.uses_cuda = true;
  r.cuda_major = 12;
  r.cuda_minor = 8;
  r.cxx11_abi = true;
  r.sass_archs = {80, 90};
  r.ptx_archs = {90};
  r.source = "cache";
  r.original_url = "https://example.org/x.whl";
  r.for_torch = {{"2.9.1+cu128", true}};
  return r;
}

// The sample's JSON with one field replaced (a JSON pointer) by `value`.
std::string with(const std::string& pointer, const nlohmann::json& value) {
  auto doc = nlohmann::json::parse(variant_record_json(sample()));
  doc[nlohmann::json::json_pointer(pointer)] = value;
  return doc.dump();
}

std::string without(const std::string& key) {
  auto doc = nlohmann::json::parse(variant_record_json(sample()));
  doc.erase(key);
  return doc.dump();
}

TEST(VariantRecord, WrittenRecordReadsBackTheSame) {
  const std::string text = variant_record_json(sample());
  auto back = parse_variant_record(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, sample());
  EXPECT_EQ(variant_record_json(*back), text);
  EXPECT_EQ(text.back(), '\n');
}

TEST(VariantRecord, UnknownFactsAreNullAndReadBackUnknown) {
  VariantRecord r = sample();
  r.torch_major.reset();
  r.torch_minor.reset();
  r.cuda_major.reset();
  r.cuda_minor.reset();
  r.cxx11_abi.reset();
  r.for_torch.clear();
  auto back = parse_variant_record(variant_record_json(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, r);
  EXPECT_THAT(variant_record_json(r), HasSubstr("\"cxx11_abi\": null"));
}

TEST(VariantRecord, EveryTruncationIsAnErrorWithAMessage) {
  const std::string text = variant_record_json(sample());
  // Every prefix short of the closing brace (trailing whitespace aside).
  const std::size_t end = text.rfind('}');
  for (std::size_t n = 0; n < end; ++n) {
    auto r = parse_variant_record(std::string_view(text).substr(0, n));
    ASSERT_FALSE(r) << "accepted a record cut at byte " << n;
    EXPECT_FALSE(r.error().message.empty());
  }
}

TEST(VariantRecord, WrongTypesAreRefusedNamingTheField) {
  struct Case {
    std::string pointer;
    nlohmann::json value;
    std::string field;
  };
  const std::vector<Case> cases = {
      {"/filename", 7, "filename"},
      {"/name", nlohmann::json::array(), "name"},
      {"/sha256", true, "sha256"},
      {"/size", "12", "size"},
      {"/size", 1.5, "size"},
      {"/torch/major", "2", "torch.major"},
      {"/torch", "2.9", "torch"},
      {"/cuda/uses", 1, "cuda.uses"},
      {"/cxx11_abi", "true", "cxx11_abi"},
      {"/archs/sass", nlohmann::json::array({"80"}), "archs.sass"},
      {"/archs/ptx", 90, "archs.ptx"},
      {"/for_torch", "2.9.1", "for_torch"},
      {"/for_torch/0/cxx11_abi", "yes", "for_torch[].cxx11_abi"},
      {"/for_torch/0/torch", nullptr, "for_torch[].torch"},
      {"/source", nlohmann::json::object(), "source"},
  };
  for (const Case& c : cases) {
    auto r = parse_variant_record(with(c.pointer, c.value));
    ASSERT_FALSE(r) << c.pointer << " = " << c.value.dump() << " was accepted";
    EXPECT_THAT(r.error().message, HasSubstr("\"" + c.field + "\"")) << c.pointer;
  }
}

TEST(VariantRecord, HugeAndNegativeNumbersAreRefused) {
  const std::vector<std::string> texts = {
      with("/size", -1),
      with("/torch/major", 1000),
      with("/torch/minor", -3),
      with("/cuda/major", 4294967296ull),
      with("/archs/sass", nlohmann::json::array({0})),
      with("/archs/sass", nlohmann::json::array({100000})),
  };
  for (const std::string& t : texts) EXPECT_FALSE(parse_variant_record(t)) << t;
  // Integers past every integer type: the JSON reader makes them floats, refused as such.
  std::string text = variant_record_json(sample());
  const std::string size = "\"size\": 12345";
  ASSERT_NE(text.find(size), std::string::npos);
  auto with_size = [&](const char* number) {
    std::string t = text;
    t.replace(t.find(size), size.size(), std::string("\"size\": ") + number);
    return parse_variant_record(t);
  };
  for (const char* huge : {"18446744073709551616", "99999999999999999999999999", "1e300"}) {
    auto r = with_size(huge);
    ASSERT_FALSE(r) << huge;
    EXPECT_THAT(r.error().message, HasSubstr("\"size\"")) << huge;
  }
  // Past a double: the JSON reader itself refuses it.
  auto overflow = with_size("1e400");
  ASSERT_FALSE(overflow);
  EXPECT_FALSE(overflow.error().message.empty());
  // The largest size there is still reads.
  auto big = parse_variant_record(with("/size", 9223372036854775807ll));
  ASSERT_TRUE(big);
  EXPECT_EQ(big->size, 9223372036854775807ull);
}

TEST(VariantRecord, SchemaHashAndFileNameAreChecked) {
  EXPECT_FALSE(parse_variant_record(with("/schema", 2)));
  EXPECT_FALSE(parse_variant_record(with("/schema", "1")));
  EXPECT_FALSE(parse_variant_record(without("schema")));
  EXPECT_FALSE(parse_variant_record(without("filename")));
  EXPECT_FALSE(parse_variant_record(without("sha256")));
  EXPECT_FALSE(parse_variant_record(without("size")));
  EXPECT_FALSE(parse_variant_record(with("/sha256", std::string(64, 'A'))));
  EXPECT_FALSE(parse_variant_record(with("/sha256", std::string(63, 'a'))));
  EXPECT_FALSE(parse_variant_record(with("/original_sha256", "zz")));
  EXPECT_FALSE(parse_variant_record(with("/filename", "../evil.whl")));
  EXPECT_FALSE(parse_variant_record(with("/filename", "a/b.whl")));
  EXPECT_FALSE(parse_variant_record(with("/filename", "x-1.0.tar.gz")));
  EXPECT_FALSE(parse_variant_record(with("/filename", "x\x1b[31m-1.0-py3-none-any.whl")));
  EXPECT_FALSE(parse_variant_record("[]"));
  EXPECT_FALSE(parse_variant_record("null"));
  EXPECT_FALSE(parse_variant_record(""));
  EXPECT_FALSE(parse_variant_record(std::string("{\"schema\": 1\0}", 14)));
}

TEST(VariantRecord, UnknownKeysAreIgnoredKnownOnesStillChecked) {
  auto doc = nlohmann::json::parse(variant_record_json(sample()));
  doc["variant_properties"] = {{"nvidia", {{"sm_arch", "80,90"}}}};
  doc["torch"]["patch"] = 1;
  auto r = parse_variant_record(doc.dump());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, sample());
}

TEST(VariantRecord, MoreThanTheBoundIsRefusedUnread) {
  auto doc = nlohmann::json::parse(variant_record_json(sample()));
  doc["padding"] = std::string(kMaxVariantRecordBytes, 'x');
  auto r = parse_variant_record(doc.dump());
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("at most"));
  auto many = with("/archs/sass", std::vector<int>(65, 80));
  EXPECT_FALSE(parse_variant_record(many));
}

TEST(VariantRecord, BuildRecordTakesTheRecordsFacts) {
  const BuildRecord b = build_record_of(sample());
  ASSERT_TRUE(b.torch);
  EXPECT_EQ(b.torch->str(), "2.9");
  ASSERT_TRUE(b.cuda);
  EXPECT_EQ(to_string(*b.cuda), "12.8");
  EXPECT_EQ(b.cxx11_abi, true);
  EXPECT_EQ(b.archs, (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(ptx_arch_names(sample()), (std::vector<std::string>{"sm_90"}));
  EXPECT_EQ(b.python, "cp311");
  EXPECT_EQ(b.platform, "linux_x86_64");
}

TEST(VariantRecord, TorchFromPlacementsOnlyWhenTheyAgree) {
  VariantRecord r = sample();
  r.torch_major.reset();
  r.torch_minor.reset();
  r.cxx11_abi.reset();
  r.uses_cuda = false;
  r.for_torch = {{"2.9.1+cu128", true}, {"2.9.0+cpu", true}};
  BuildRecord b = build_record_of(r);
  ASSERT_TRUE(b.torch);
  EXPECT_EQ(b.torch->str(), "2.9");
  EXPECT_EQ(b.cxx11_abi, true);
  ASSERT_TRUE(b.cuda);
  EXPECT_TRUE(b.cuda->cpu());
  r.for_torch.push_back({"2.8.0", false});  // two minors, two ABIs: neither is known
  b = build_record_of(r);
  EXPECT_FALSE(b.torch);
  EXPECT_FALSE(b.cxx11_abi);
  r.for_torch.clear();
  EXPECT_FALSE(build_record_of(r).torch);
  r.uses_cuda = true;
  r.cuda_major.reset();
  EXPECT_FALSE(build_record_of(r).cuda);  // uses CUDA, which one unknown
}

}  // namespace
}  // namespace flashfit::store
