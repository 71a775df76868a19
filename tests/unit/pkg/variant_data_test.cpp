// Decodes the label of every wheel in data/ and checks each field against an
// expectation derived independently, with plain string operations, from the
// file name and its release tag. The counts pin the data set, so a changed
// file shows up here and gets looked at.

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "pkg/variant.hpp"

namespace flashfit::pkg {
namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
    fields.push_back(line.substr(start, tab - start));
  }
  fields.push_back(line.substr(start));
  return fields;
}

// The text between `open` and `close` (or the end when close is empty).
std::string between(const std::string& text, const std::string& open, const std::string& close) {
  const std::size_t start = text.find(open);
  if (start == std::string::npos) return "<no " + open + ">";
  const std::size_t from = start + open.size();
  const std::size_t end = close.empty() ? std::string::npos : text.find(close, from);
  return text.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

// The local label of a wheel file name: from the '+' to the next '-'.
std::string label_of(const std::string& filename) {
  const std::size_t plus = filename.find('+');
  EXPECT_NE(plus, std::string::npos) << filename;
  EXPECT_EQ(filename.find('+', plus + 1), std::string::npos) << "two '+' in " << filename;
  const std::size_t dash = filename.find('-', plus);
  return filename.substr(plus + 1, dash - plus - 1);
}

// Shared URLs may spell '+' as %2B (docs/background.md §19); counts the escapes.
std::string unescape_plus(const std::string& text, int& escapes) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "%2B") == 0 || text.compare(i, 3, "%2b") == 0) {
      out += '+';
      i += 2;
      ++escapes;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string lowered(std::string text) {
  for (auto& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::string cuda_digits(const CudaVersion& cuda) {
  return std::to_string(cuda.major) + (cuda.minor ? std::to_string(*cuda.minor) : "");
}

// "v2.7.0.post1" -> {2, 7, 0}: enough to place a tag in docs/background.md §9's eras.
std::array<int, 3> release_of(const std::string& tag) {
  std::array<int, 3> release{};
  std::size_t pos = 1;  // after 'v'
  for (int& part : release) {
    std::size_t used = 0;
    part = std::stoi(tag.substr(pos), &used);
    pos += used + 1;
  }
  return release;
}

// The CUDA tokens upstream CI produced in each era of docs/background.md §9.
std::set<std::string> cuda_tokens_for(const std::string& tag) {
  const auto release = release_of(tag);
  if (release < std::array<int, 3>{2, 6, 1}) return {"118", "122"};
  if (release < std::array<int, 3>{2, 7, 0}) return {"118", "123"};
  return {"11", "12", "13"};
}

// Decoding must not depend on case: Version::local() hands labels over lower-cased.
void expect_same_as_lowered(const std::string& label, const VariantLabel& decoded) {
  VariantLabel from_local = decode_variant(lowered(label));
  from_local.raw = decoded.raw;
  EXPECT_EQ(from_local, decoded) << label;
}

TEST(variant_data, EveryOfficialWheel) {
  const auto lines = read_lines(FLASHFIT_DATA_DIR "/flash-attn-official-wheels.tsv");
  ASSERT_FALSE(lines.empty());
  ASSERT_EQ(lines.front(), "tag\tfilename\tevidence");
  int rows = 0;
  std::map<bool, int> by_abi;
  std::map<std::string, int> by_cuda;
  std::set<std::string> labels;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto fields = split_tabs(lines[i]);
    ASSERT_EQ(fields.size(), 3U) << "line " << i + 1;
    const std::string& tag = fields[0];
    const std::string& filename = fields[1];
    const std::string label = label_of(filename);
    SCOPED_TRACE(filename);
    ++rows;
    labels.insert(label);

    const VariantLabel v = decode_variant(label);
    EXPECT_EQ(v.scheme, VariantScheme::upstream);
    EXPECT_EQ(v.raw, label);
    EXPECT_FALSE(v.rocm);
    EXPECT_FALSE(v.git_hash);
    EXPECT_FALSE(v.cpu_only);

    // "cxx11abiTRUE" <-> true, "cxx11abiFALSE" <-> false.
    const std::string abi = between(label, "cxx11abi", "");
    ASSERT_TRUE(abi == "TRUE" || abi == "FALSE") << abi;
    EXPECT_EQ(v.cxx11_abi, abi == "TRUE");
    ++by_abi[abi == "TRUE"];

    ASSERT_TRUE(v.torch);
    EXPECT_EQ(v.torch->str(), between(label, "torch", "cxx11abi"));

    const std::string cuda = between(label, "cu", "torch");
    ASSERT_TRUE(v.cuda);
    EXPECT_EQ(cuda_digits(*v.cuda), cuda);
    EXPECT_EQ(v.cuda->minor.has_value(), cuda.size() == 3);  // cu12 = any 12.x
    EXPECT_EQ(cuda_tokens_for(tag).count(cuda), 1U) << "tag " << tag;
    ++by_cuda[cuda];

    EXPECT_EQ(v.describe().find("torch " + v.torch->str()) != std::string::npos, true);
    expect_same_as_lowered(label, v);
  }
  EXPECT_EQ(rows, 2826);
  // The corrected catalog (guessed rows removed, v2.8.3's assets confirmed, aarch64 twins added).
  EXPECT_EQ(by_abi[true], 1420);
  EXPECT_EQ(by_abi[false], 1406);
  EXPECT_EQ(labels.size(), 62U);
  EXPECT_EQ(by_cuda,
            (std::map<std::string, int>{
                {"11", 538}, {"118", 850}, {"12", 933}, {"122", 384}, {"123", 114}, {"13", 7}}));
}

TEST(variant_data, EveryCommunityWheel) {
  const auto lines = read_lines(FLASHFIT_DATA_DIR "/flash-attn-community-wheels.tsv");
  ASSERT_FALSE(lines.empty());
  ASSERT_EQ(lines.front(), "url");
  int probe = 0;  // the %2B path is not exercised by this snapshot, so check it here
  EXPECT_EQ(unescape_plus("flash_attn-2.8.3%2Bcu128torch2.8%2b-x.whl", probe),
            "flash_attn-2.8.3+cu128torch2.8+-x.whl");
  EXPECT_EQ(probe, 2);
  int urls = 0;
  int escaped_plus = 0;
  int with_git = 0;
  std::set<std::string> labels;
  std::set<std::string> names;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& url = lines[i];
    ASSERT_EQ(url.rfind("https://github.com/mjun0812/", 0), 0U) << url;
    const std::string filename = unescape_plus(url.substr(url.rfind('/') + 1), escaped_plus);
    const std::string label = label_of(filename);
    SCOPED_TRACE(url);
    ++urls;
    labels.insert(label);
    names.insert(filename);

    const VariantLabel v = decode_variant(label);
    EXPECT_EQ(v.scheme, VariantScheme::community);
    EXPECT_FALSE(v.cxx11_abi);  // mjun0812 names carry no ABI token
    EXPECT_FALSE(v.rocm);
    EXPECT_FALSE(v.cpu_only);

    // Always CUDA major and minor: two digits of major, one of minor.
    const std::string cuda = between(label, "cu", "torch");
    ASSERT_EQ(cuda.size(), 3U) << cuda;
    ASSERT_TRUE(v.cuda);
    EXPECT_EQ(v.cuda->major, std::stoi(cuda.substr(0, 2)));
    EXPECT_EQ(v.cuda->minor, cuda[2] - '0');

    const bool git = label.find("git") != std::string::npos;
    ASSERT_TRUE(v.torch);
    EXPECT_EQ(v.torch->str(), between(label, "torch", git ? "git" : ""));
    EXPECT_EQ(v.torch->major, 2);

    // Only the FA3 builds (flash_attn_3-3.0.0+…) carry the source's git hash.
    const bool fa3 = filename.rfind("flash_attn_3-", 0) == 0;
    EXPECT_EQ(git, fa3);
    if (git) {
      ++with_git;
      EXPECT_EQ(v.git_hash, between(label, "git", ""));
    } else {
      EXPECT_FALSE(v.git_hash);
    }
    expect_same_as_lowered(label, v);
  }
  EXPECT_EQ(urls, 3567);
  EXPECT_EQ(escaped_plus, 0);  // this snapshot spells '+' literally; the decoding above stays
  EXPECT_EQ(with_git, 103);
  EXPECT_EQ(labels.size(), 77U);
  EXPECT_EQ(names.size(), 2263U);  // docs/background.md §18: 3,567 links for 2,263 names
}

}  // namespace
}  // namespace flashfit::pkg
