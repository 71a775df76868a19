// METADATA an index serves beside a wheel (PEP 658): read for the pick's
// dependencies only when it is that wheel's (its sha256, name and version).
#include "workflow/core_metadata.hpp"

#include <gtest/gtest.h>

#include "util/sha256.hpp"

namespace flashfit::workflow {
namespace {

const std::string kMetadata =
    "Metadata-Version: 2.1\nName: Flash_Attn\nVersion: 2.8.3\nRequires-Dist: torch\n"
    "Requires-Dist: einops\n\nA long description.\nRequires-Dist: not-a-header\n";

resolve::Candidate pick(std::string filename, std::optional<std::string> metadata_sha256) {
  resolve::Candidate c;
  c.filename = std::move(filename);
  c.url = "https://team.example/files/" + c.filename;
  c.core_metadata = std::move(metadata_sha256);
  return c;
}

TEST(ServedRequiresDist, TheWheelsOwnMetadataGivesItsRequiresDist) {
  const std::vector<std::string> want = {"torch", "einops"};
  // The page's sha256 checked; none given; a local label only in the file
  // name (upstream's habit); the name spelled another way.
  for (const auto& c :
       {pick("flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl", util::sha256_hex(kMetadata)),
        pick("flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl", ""),
        pick("flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl", "")}) {
    auto required = served_requires_dist(c, kMetadata);
    ASSERT_TRUE(required) << c.filename << ": " << required.error().message;
    EXPECT_EQ(*required, want) << c.filename;
  }
}

TEST(ServedRequiresDist, AnotherFilesMetadataIsAnError) {
  auto wrong_hash = served_requires_dist(
      pick("flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl", std::string(64, 'a')), kMetadata);
  ASSERT_FALSE(wrong_hash);
  EXPECT_EQ(wrong_hash.error().kind, util::ErrorKind::failed);
  EXPECT_NE(wrong_hash.error().message.find("does not match the sha256 its page gives"),
            std::string::npos)
      << wrong_hash.error().message;
  EXPECT_EQ(wrong_hash.error().context,
            "https://team.example/files/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl.metadata");
  for (const char* filename : {"flash_attn-2.8.4-cp311-cp311-linux_x86_64.whl",
                               "flash_attn_3-2.8.3-cp311-cp311-linux_x86_64.whl"}) {
    auto other = served_requires_dist(pick(filename, ""), kMetadata);
    ASSERT_FALSE(other) << filename;
    EXPECT_EQ(other.error().message, std::string("the index's METADATA for ") + filename +
                                         " is for Flash_Attn 2.8.3, not this wheel");
  }
  // A label in the METADATA must be the file name's too.
  const std::string labelled = "Metadata-Version: 2.1\nName: flash-attn\nVersion: 2.8.3+cu12\n";
  EXPECT_FALSE(
      served_requires_dist(pick("flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl", ""), labelled));
  EXPECT_TRUE(served_requires_dist(pick("flash_attn-2.8.3+cu12-cp311-cp311-linux_x86_64.whl", ""),
                                   labelled));
}

TEST(ServedRequiresDist, BadInputIsAnErrorNotACrash) {
  const auto c = pick("flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl", "");
  for (const std::string& text :
       {std::string(), std::string("no headers at all"), std::string("Name: flash-attn\n"),
        std::string("Name: flash-attn\nVersion: not a version\n"), std::string("\0\xff\xfe", 3)}) {
    EXPECT_FALSE(served_requires_dist(c, text)) << text;
  }
  EXPECT_FALSE(served_requires_dist(pick("not-a-wheel-name", ""), kMetadata));
}

}  // namespace
}  // namespace flashfit::workflow
