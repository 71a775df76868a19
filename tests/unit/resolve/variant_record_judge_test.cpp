// A label-less wheel from an index is judged by the variant record published
// beside it (resolve/variant_records.*) exactly as a cache entry is judged by
// its build record; without a readable record (missing, malformed, another
// file, a sha256 the index contradicts, silent on torch) its facts stay
// unknown and its fit is an assumption, never certain.
#include <gmock/gmock.h>

#include "resolve/rules.hpp"
#include "resolve/variant_records.hpp"
#include "store/variant_record.hpp"
#include "targets.hpp"

namespace flashfit::resolve {
namespace {

using ::testing::HasSubstr;
using testing::make_target;
using testing::TargetSpec;

const std::string kFile = "flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl";
const std::string kSha(64, 'c');

Candidate index_wheel(const std::string& filename = kFile) {
  Candidate c;
  c.filename = filename;
  c.url = "http://127.0.0.1:1/files/" + filename;
  c.source = "index";
  c.role = SourceRole::index;
  c.priority = 1;
  c.sha256 = kSha;
  return c;
}

store::VariantRecord record(int torch_minor = 9, bool abi = true) {
  store::VariantRecord r;
  r.filename = kFile;
  r.name = "flash-attn";
  r.version = "2.8.3";
  r.sha256 = kSha;
  r.size = 1;
  r.python_tag = "cp312";
  r.platform = "linux_x86_64";
  r.torch_major = 2;
  r.torch_minor = torch_minor;
  r.uses_cuda = true;
  r.cuda_major = 12;
  r.cuda_minor = 8;
  r.cxx11_abi = abi;
  r.sass_archs = {80};
  r.source = "build";
  return r;
}

RecordText text_of(const store::VariantRecord& r) {
  return {store::variant_record_json(r), {}};
}

struct IndexRecord : ::testing::Test {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* fa = book.find("flash-attn");
  Request request{"flash-attn", {}, "flash-attn"};

  Judged judged(const Candidate& c, const TargetSpec& spec = {}) {
    auto j = judge(c, request, fa, make_target(spec), JudgeOptions{true});
    EXPECT_TRUE(j);
    return *j;
  }
};

bool has_assumption(const Judged& j, const std::string& fact) {
  for (const Assumption& a : j.assumptions)
    if (a.fact == fact) return true;
  return false;
}

TEST_F(IndexRecord, OnlyLabelLessCompiledWheelsOfARecipeFromAnIndexWantOne) {
  ASSERT_NE(fa, nullptr);
  EXPECT_TRUE(wants_variant_record(index_wheel(), fa));
  Candidate find_links = index_wheel();
  find_links.role = SourceRole::find_links;
  EXPECT_TRUE(wants_variant_record(find_links, fa));
  EXPECT_FALSE(wants_variant_record(index_wheel(), nullptr));  // no recipe
  EXPECT_FALSE(wants_variant_record(
      index_wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl"), fa));
  EXPECT_FALSE(wants_variant_record(index_wheel("flash_attn-2.8.3-py3-none-any.whl"), fa));
  Candidate cache = index_wheel();
  cache.role = SourceRole::cache;
  EXPECT_FALSE(wants_variant_record(cache, fa));
  Candidate upstream = index_wheel();
  upstream.role = SourceRole::upstream;
  EXPECT_FALSE(wants_variant_record(upstream, fa));
  // An unknown label is no label flashfit reads.
  EXPECT_TRUE(
      wants_variant_record(index_wheel("flash_attn-2.8.3+team7-cp312-cp312-linux_x86_64.whl"), fa));
}

TEST_F(IndexRecord, ARecordForTheTorchHereFitsForCertain) {
  Candidate c = index_wheel();
  EXPECT_FALSE(apply_variant_record(c, text_of(record())));
  EXPECT_FALSE(c.record_doubt);
  Judged j = judged(c);
  EXPECT_TRUE(j.certain()) << (j.reasons.empty() ? "" : j.reasons.front().message);
  EXPECT_EQ(j.abi_basis, "its variant record");
  EXPECT_EQ(j.variant.torch, (pkg::TorchVersion{2, 9}));
}

TEST_F(IndexRecord, ARecordIsJudgedLikeACacheBuildRecord) {
  // Another torch, the other ABI, another CUDA major: rejected with the reason.
  Candidate torch28 = index_wheel();
  apply_variant_record(torch28, text_of(record(8)));
  Judged j = judged(torch28);
  EXPECT_TRUE(j.has(ReasonCode::torch));
  ASSERT_FALSE(j.reasons.empty());
  EXPECT_THAT(j.reasons.front().message, HasSubstr("built for torch 2.8"));

  Candidate old_abi = index_wheel();
  apply_variant_record(old_abi, text_of(record(9, false)));
  Judged k = judged(old_abi);
  ASSERT_TRUE(k.has(ReasonCode::cxx11_abi));
  EXPECT_THAT(k.reasons.back().message, HasSubstr("its variant record"));

  store::VariantRecord cu13 = record();
  cu13.cuda_major = 13;
  Candidate c13 = index_wheel();
  apply_variant_record(c13, text_of(cu13));
  EXPECT_TRUE(judged(c13).has(ReasonCode::cuda));

  // The same facts from a cache entry's build record give the same verdicts.
  TargetSpec torch28_here;
  torch28_here.torch = "2.8.0+cu128";
  EXPECT_TRUE(judged(torch28, torch28_here).certain());
}

TEST_F(IndexRecord, RecordedArchsAndPtxDecideGpuCoverage) {
  TargetSpec h100;
  h100.gpus = std::vector<std::string>{"9.0"};
  Candidate sass80 = index_wheel();
  apply_variant_record(sass80, text_of(record()));
  EXPECT_TRUE(judged(sass80, h100).has(ReasonCode::gpu_arch));
  store::VariantRecord with_ptx = record();
  with_ptx.ptx_archs = {80};
  Candidate ptx80 = index_wheel();
  apply_variant_record(ptx80, text_of(with_ptx));
  EXPECT_FALSE(judged(ptx80, h100).has(ReasonCode::gpu_arch));
  // Kernels of a CUDA wheel that the record does not list: not known, not "none".
  store::VariantRecord unlisted = record();
  unlisted.sass_archs.clear();
  Candidate unknown = index_wheel();
  apply_variant_record(unknown, text_of(unlisted));
  EXPECT_FALSE(unknown.built_archs);
  EXPECT_FALSE(judged(unknown, h100).has(ReasonCode::gpu_arch));
}

TEST_F(IndexRecord, WithoutARecordTheFitIsAnAssumption) {
  Candidate none = index_wheel();
  EXPECT_FALSE(apply_variant_record(none, RecordText{std::nullopt, "no variant record beside it"}));
  ASSERT_TRUE(none.record_doubt);
  Judged j = judged(none);
  EXPECT_TRUE(j.compatible());
  EXPECT_FALSE(j.certain());
  ASSERT_TRUE(has_assumption(j, "variant-record"));
  EXPECT_THAT(j.assumptions.front().message, HasSubstr("no variant record beside it"));
  // The same wheel before records existed was judged certain: the doubt is what changed.
  Candidate plain = index_wheel();
  EXPECT_FALSE(has_assumption(judged(plain), "variant-record"));
}

TEST_F(IndexRecord, ABadRecordIsRefusedWithAReasonAndLeavesTheFactsUnknown) {
  struct Case {
    RecordText text;
    std::string why;
  };
  store::VariantRecord other_file = record();
  other_file.filename = "flash_attn-2.8.2-cp312-cp312-linux_x86_64.whl";
  store::VariantRecord other_sha = record();
  other_sha.sha256 = std::string(64, 'd');
  const std::vector<Case> cases = {
      {{std::string("{\"schema\": 1, \"filename\""), {}}, "not valid JSON"},
      {{std::string("{\"schema\": 1, \"filename\": 3}"), {}}, "\"filename\""},
      {text_of(other_file), "another file"},
      {text_of(other_sha), "sha256"},
  };
  for (const Case& c : cases) {
    Candidate cand = index_wheel();
    auto warning = apply_variant_record(cand, c.text);
    ASSERT_TRUE(warning) << c.why;
    EXPECT_THAT(*warning, HasSubstr(c.why));
    EXPECT_THAT(*warning, HasSubstr(kFile));
    EXPECT_FALSE(cand.built_variant) << c.why;
    ASSERT_TRUE(cand.record_doubt);
    EXPECT_THAT(*cand.record_doubt, HasSubstr("refused"));
    Judged j = judged(cand);
    EXPECT_FALSE(j.certain()) << c.why;
    EXPECT_TRUE(has_assumption(j, "variant-record"));
  }
}

TEST_F(IndexRecord, ARecordSilentOnTorchLeavesADoubt) {
  store::VariantRecord r = record();
  r.torch_major.reset();
  r.torch_minor.reset();
  Candidate c = index_wheel();
  EXPECT_FALSE(apply_variant_record(c, text_of(r)));
  EXPECT_FALSE(c.built_variant);
  ASSERT_TRUE(c.record_doubt);
  EXPECT_THAT(*c.record_doubt, HasSubstr("which torch"));
  // A --for-torch placement names it.
  r.for_torch = {{"2.9.1+cu128", true}};
  Candidate placed = index_wheel();
  apply_variant_record(placed, text_of(r));
  EXPECT_FALSE(placed.record_doubt);
  EXPECT_TRUE(judged(placed).certain());
}

TEST_F(IndexRecord, TheBoundAndOfflineLeaveDoubtsWithoutFetching) {
  std::vector<Candidate> many(kMaxVariantRecordFetches + 3, index_wheel());
  RecordBudget budget;
  budget.reads = 0;
  std::vector<std::string> warnings;
  attach_variant_records(many, 0, fa, true, budget, warnings);
  for (const Candidate& c : many) {
    ASSERT_TRUE(c.record_doubt);
    EXPECT_THAT(*c.record_doubt, HasSubstr("at most 32"));
  }
  std::vector<Candidate> offline{index_wheel()};
  budget.reads = 1;
  attach_variant_records(offline, 0, fa, false, budget, warnings);
  ASSERT_TRUE(offline.front().record_doubt);
  EXPECT_THAT(*offline.front().record_doubt, HasSubstr("--offline"));
  EXPECT_TRUE(warnings.empty());
}

TEST_F(IndexRecord, ADeadServerCostsOneFetchNotThirtyTwo) {
  // Port 1 on 127.0.0.1: refused at once. The first fetch fails; the rest are not tried.
  std::vector<Candidate> wheels(3, index_wheel());
  RecordBudget budget;
  std::vector<std::string> warnings;
  attach_variant_records(wheels, 0, fa, true, budget, warnings);
  EXPECT_FALSE(budget.http);
  EXPECT_EQ(budget.reads, kMaxVariantRecordFetches - 3);
  ASSERT_TRUE(wheels[0].record_doubt);
  EXPECT_THAT(*wheels[0].record_doubt, HasSubstr("could not be fetched"));
  for (std::size_t i = 1; i < wheels.size(); ++i) {
    ASSERT_TRUE(wheels[i].record_doubt);
    EXPECT_THAT(*wheels[i].record_doubt, HasSubstr("an earlier record"));
  }
  EXPECT_FALSE(judge(wheels[0], request, fa, make_target({}))->certain());
}

}  // namespace
}  // namespace flashfit::resolve
