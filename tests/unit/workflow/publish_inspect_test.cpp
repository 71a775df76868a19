// The pure helpers of publish's inspection step (the step itself runs on real
// torch-extension wheels in tests/integration/test_publish.sh).
#include "workflow/publish_inspect.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "binary/wheel_bytes.hpp"
#include "util/atomic_file.hpp"
#include "util/sha256.hpp"
#include "workflow/publish.hpp"

namespace flashfit::workflow {
namespace {

TEST(PublishInspect, RequiresPythonFromHeadersOnly) {
  EXPECT_EQ(requires_python_of("Name: a\nRequires-Python: >=3.9, <4 \nVersion: 1\n\n"),
            ">=3.9, <4");
  EXPECT_EQ(requires_python_of("Name: a\r\nrequires-python:>=3.8\r\n\r\n"), ">=3.8");
  EXPECT_EQ(requires_python_of("Name: a\n\nRequires-Python: >=3.9\n"), "");  // in the body
  EXPECT_EQ(requires_python_of(""), "");
  EXPECT_EQ(requires_python_of(std::string("\0\xff\n", 3)), "");
}

TEST(PublishInspect, CudaRuntimeMajorFromNeededNames) {
  EXPECT_EQ(cudart_major("libcudart.so.12"), 12);
  EXPECT_EQ(cudart_major("libcudart.so.11.0"), 11);
  EXPECT_FALSE(cudart_major("libcudart.so."));
  EXPECT_FALSE(cudart_major("libcudart.so"));
  EXPECT_FALSE(cudart_major("libc10.so"));
}

// The pool: every input gets its candidate, in input order, whatever the
// number of threads; unreadable inputs are refusals, not errors.
TEST(PublishInspect, InspectAllKeepsInputOrderOnAnyNumberOfThreads) {
  test::TempDir tmp("publish-inspect");
  std::vector<std::filesystem::path> wheels;
  for (int i = 0; i < 13; ++i) {
    // Odd ones are not wheel names; even ones are named like wheels but are not zips.
    const auto name = i % 2 ? "not a wheel " + std::to_string(i) + ".whl"
                            : "p" + std::to_string(i) + "-1.0-py3-none-any.whl";
    std::ofstream(tmp.path() / name) << "not a zip " << i;
    wheels.push_back(tmp.path() / name);
  }
  for (unsigned threads : {1u, 3u, 8u, 0u}) {
    std::vector<std::string> said;
    auto out = inspect_all_for_publish(
        wheels, tmp.path(), [&](std::string_view line) { said.emplace_back(line); }, "", threads);
    ASSERT_EQ(out.size(), wheels.size()) << threads;
    EXPECT_EQ(said.size(), wheels.size()) << threads;
    for (std::size_t i = 0; i < wheels.size(); ++i) {
      EXPECT_EQ(out[i].path, wheels[i]) << threads;
      EXPECT_EQ(out[i].facts.filename, wheels[i].filename().string());
      ASSERT_TRUE(out[i].refusal) << wheels[i];
      if (i % 2) {
        EXPECT_NE(out[i].refusal->find("not a wheel file name"), std::string::npos);
      }
    }
  }
  EXPECT_TRUE(inspect_all_for_publish({}, tmp.path(), {}).empty());
}

// Writes NAME-1.0-py3-none-any.whl into `dir` with Python's zipfile (stored
// members, a true RECORD unless `lie`): a real wheel for the read-once path.
std::filesystem::path python_wheel(const std::filesystem::path& dir, const std::string& name,
                                   bool lie) {
  const std::string script = R"(
import base64, hashlib, sys, zipfile
out, name, lie = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
di = name + "-1.0.dist-info"
files = {name + "/__init__.py": b"x = 1\n", name + "/data.bin": bytes(range(256)) * 4096,
         di + "/METADATA": ("Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n\n" % name).encode(),
         di + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
def h(d):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
rec = "".join("%s,%s,%d\n" % (p, h(b"lie" if lie and p.endswith(".bin") else d), len(d)) for p, d in files.items())
with zipfile.ZipFile(out + "/" + name + "-1.0-py3-none-any.whl", "w") as z:
    for p, d in files.items():
        z.writestr(p, d)
    z.writestr(di + "/RECORD", rec + di + "/RECORD,,\n")
)";
  const auto script_path = dir / (name + "-make.py");
  std::ofstream(script_path) << script;
  const std::string command = std::string(FLASHFIT_TEST_PYTHON) + " '" + script_path.string() +
                              "' '" + dir.string() + "' " + name + (lie ? " 1" : " 0");
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return dir / (name + "-1.0-py3-none-any.whl");
}

// A small wheel is read once: its sha256 is of the bytes libzip inspected, and
// those bytes stay with the candidate for the put. A refused wheel keeps none.
TEST(PublishInspect, ASmallWheelIsReadOnceAndItsInspectedBytesKeptForThePut) {
  test::TempDir tmp("publish-inspect");
  const auto good = python_wheel(tmp.path(), "goodpkg", false);
  const auto bad = python_wheel(tmp.path(), "badpkg", true);
  auto out = inspect_all_for_publish({good, bad}, tmp.path(), {});
  ASSERT_EQ(out.size(), 2u);
  ASSERT_FALSE(out[0].refusal) << *out[0].refusal;
  const std::string file = util::read_small_file(good).value_or("");
  ASSERT_FALSE(file.empty());
  ASSERT_TRUE(out[0].bytes);
  EXPECT_EQ(out[0].bytes->view(), file);
  EXPECT_EQ(out[0].facts.sha256, util::sha256_hex(file));
  EXPECT_EQ(out[0].facts.size, file.size());
  EXPECT_EQ(out[0].metadata.substr(0, 21), "Metadata-Version: 2.1");
  ASSERT_TRUE(out[1].refusal);
  EXPECT_NE(out[1].refusal->find("record"), std::string::npos) << *out[1].refusal;
  EXPECT_FALSE(out[1].bytes);
}

// With a stage directory, a wheel is copied there as it is read and hashed:
// the copy (under the wheel's own name) is what is inspected and what the put
// moves; no bytes are held. A refused wheel's copy is removed at once; a
// wheel whose name the target holds already is not copied (read into memory).
TEST(PublishInspect, WithAStageDirectoryAWheelIsCopiedAndItsCopyInspected) {
  test::TempDir tmp("publish-inspect");
  const auto good = python_wheel(tmp.path(), "goodpkg", false);
  const auto bad = python_wheel(tmp.path(), "badpkg", true);
  const auto there = python_wheel(tmp.path(), "therepkg", false);
  const auto stage = tmp.path() / "stage";
  std::filesystem::create_directories(stage);
  StagePlan plan{stage, {there.filename().string()}};
  auto out = inspect_all_for_publish({good, bad, there}, tmp.path(), {}, "", 2, plan);
  ASSERT_EQ(out.size(), 3u);
  ASSERT_FALSE(out[0].refusal) << *out[0].refusal;
  const std::string file = util::read_small_file(good).value_or("");
  EXPECT_EQ(out[0].staged, stage / good.filename());
  EXPECT_EQ(util::read_small_file(out[0].staged).value_or(""), file);
  EXPECT_FALSE(out[0].bytes);
  EXPECT_EQ(out[0].path, good);
  EXPECT_EQ(out[0].facts.sha256, util::sha256_hex(file));
  EXPECT_EQ(out[0].facts.size, file.size());
  EXPECT_EQ(out[0].metadata.substr(0, 21), "Metadata-Version: 2.1");
  ASSERT_TRUE(out[1].refusal);
  EXPECT_TRUE(out[1].staged.empty());
  EXPECT_FALSE(std::filesystem::exists(stage / bad.filename()));
  ASSERT_FALSE(out[2].refusal) << *out[2].refusal;
  EXPECT_TRUE(out[2].staged.empty());
  EXPECT_TRUE(out[2].bytes);
  // A copy of that name already staged (two inputs of one name): the wheel is
  // read into memory instead; a stage directory that cannot be written to
  // likewise.
  auto again = inspect_for_publish(good, tmp.path(), stage);
  ASSERT_FALSE(again.refusal) << *again.refusal;
  EXPECT_TRUE(again.staged.empty());
  EXPECT_TRUE(again.bytes);
  auto nowhere = inspect_for_publish(good, tmp.path(), tmp.path() / "no-such-dir");
  ASSERT_FALSE(nowhere.refusal) << *nowhere.refusal;
  EXPECT_TRUE(nowhere.bytes);
  EXPECT_EQ(nowhere.facts.sha256, util::sha256_hex(file));
  // An unreadable wheel is a refusal, with or without a stage directory.
  auto missing = inspect_for_publish(tmp.path() / "gone-1.0-py3-none-any.whl", tmp.path(), stage);
  ASSERT_TRUE(missing.refusal);
  EXPECT_EQ(*missing.refusal, "cannot read the file");
}

// The staged copies in the temp directory, by name.
std::vector<std::string> staged_names(const std::filesystem::path& temp) {
  std::vector<std::string> names;
  for (const auto& dir : std::filesystem::directory_iterator(temp)) {
    if (dir.path().filename().string().rfind("flashfit-publish-stage-", 0) != 0) continue;
    for (const auto& f : std::filesystem::directory_iterator(dir.path()))
      names.push_back(f.path().filename().string());
  }
  return names;
}

// Through the whole flow into a directory on the temp directory's file
// system: the wheel is staged while it is inspected and goes up as its staged
// copy, with the mode a file created in the target gets; the stage directory
// is gone afterwards. A dry run stages nothing (and creates no target); a
// re-publish stages nothing (the name is there).
TEST(PublishInspect, APublishStagesItsCopiesAndLeavesNoneBehind) {
  test::TempDir tmp("publish-inspect");
  const auto good = python_wheel(tmp.path(), "stagedpkg", false);
  const auto temp = tmp.path() / "tmp";
  const auto out = tmp.path() / "out";
  std::filesystem::create_directories(temp);
  PublishRequest request;
  request.target = out.string();
  request.inputs = {good};
  request.temp_dir = temp;
  for (int run = 0; run < 3; ++run) {
    request.dry_run = run == 0;
    std::vector<std::string> staged_at_upload;
    bool uploaded = false;
    request.progress = [&](std::string_view line) {
      if (line.rfind("uploading ", 0) != 0) return;
      uploaded = true;
      staged_at_upload = staged_names(temp);
    };
    auto report = publish(request);
    ASSERT_TRUE(report) << report.error().message;
    EXPECT_TRUE(std::filesystem::is_empty(temp)) << run;
    if (run == 0) {
      EXPECT_FALSE(std::filesystem::exists(out));
    } else if (run == 1) {
      EXPECT_TRUE(uploaded);
      EXPECT_EQ(staged_at_upload, std::vector<std::string>{good.filename().string()});
    } else {
      EXPECT_FALSE(uploaded);
    }
  }
  const auto published = out / "files" / good.filename();
  EXPECT_EQ(util::read_small_file(published), util::read_small_file(good));
  const auto metadata = out / "files" / (good.filename().string() + ".metadata");
  EXPECT_EQ(std::filesystem::status(published).permissions(),
            std::filesystem::status(metadata).permissions());
}

// Upstream's version trap with a stage directory: the rewritten copy is the
// candidate (owned, not staged), rewritten from the staged copy, and the
// staged copy is removed; the original sha256 is the input's.
TEST(PublishInspect, TheVersionTrapRewritesTheStagedCopyAndDropsIt) {
  test::TempDir tmp("publish-inspect");
  const auto plain = python_wheel(tmp.path(), "trappkg", false);
  const auto labelled = tmp.path() / "trappkg-1.0+cu12-py3-none-any.whl";
  std::filesystem::rename(plain, labelled);
  const auto stage = tmp.path() / "stage";
  std::filesystem::create_directories(stage);
  auto out = inspect_all_for_publish({labelled}, tmp.path(), {}, "", 1, StagePlan{stage, {}});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_FALSE(out[0].refusal) << *out[0].refusal;
  EXPECT_TRUE(out[0].staged.empty());
  EXPECT_FALSE(out[0].owned_dir.empty());
  EXPECT_TRUE(std::filesystem::is_empty(stage));
  EXPECT_EQ(out[0].facts.original_sha256,
            util::sha256_hex(util::read_small_file(labelled).value_or("")));
  EXPECT_EQ(out[0].facts.metadata_version, "1.0+cu12");
  std::error_code ec;
  std::filesystem::remove_all(out[0].owned_dir, ec);
}

}  // namespace
}  // namespace flashfit::workflow
