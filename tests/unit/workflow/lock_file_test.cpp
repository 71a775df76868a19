// flashfit lock's file: the key from a resolve target, the text rendered and
// its header parsed back, differences named, hostile headers refused.
#include "workflow/lock_file.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "pkg/tags.hpp"

namespace flashfit::workflow {
namespace {

resolve::ResolveTarget cuda_target() {
  resolve::ResolveTarget target;
  target.python = env::MajorMinor{3, 11};
  target.tags = pkg::SupportedTags(
      {{"cp311", "cp311", "manylinux_2_36_x86_64"}, {"cp311", "abi3", "manylinux_2_36_x86_64"}});
  target.arch = "x86_64";
  target.torch_installed = true;
  target.torch = *pkg::Version::parse("2.8.0+cu128");
  target.torch_cuda = std::optional<env::MajorMinor>(env::MajorMinor{12, 8});
  target.cxx11_abi = true;
  target.gpus = std::vector<env::ComputeCapability>{{9, 0}, {8, 0}, {9, 0}};
  return target;
}

LockDocument document_for(const LockKey& key) {
  LockDocument document;
  document.key = key;
  document.flashfit.push_back({"flash-attn", "2.8.3", "https://h/flash_attn-2.8.3.whl",
                               std::string(64, 'A'), "flashfit's pick"});
  document.installer.push_back({"numpy", "2.1.0", "https://h/numpy.whl", std::nullopt, "pip"});
  return document;
}

TEST(LockFile, KeyFromATarget) {
  const LockKey key = lock_key_from(cuda_target());
  EXPECT_EQ(key.python, "cp311");
  EXPECT_EQ(key.platform, "manylinux_2_36_x86_64");
  EXPECT_EQ(key.torch, "2.8.0+cu128");
  EXPECT_EQ(key.cuda, "12.8");
  EXPECT_EQ(key.cxx11_abi, "true");
  EXPECT_EQ(key.gpu_archs, "sm_80,sm_90");
}

// The tags pip computes for CPython 3.13 on glibc 2.36 x86_64, with the GIL or
// without (3.13t), debug or not.
resolve::ResolveTarget cpython_313(bool free_threaded, bool debug = false) {
  pkg::InterpreterTagFacts facts;
  facts.implementation = "cpython";
  facts.python_minor = 13;
  facts.py_version_nodot = "313";
  facts.py_debug = debug;
  facts.gil_disabled = free_threaded;
  facts.system = "Linux";
  facts.platform = "linux-x86_64";
  facts.glibc = pkg::LibcVersion{2, 36};
  resolve::ResolveTarget target;
  target.tags = pkg::SupportedTags(pkg::supported_tags(facts));
  target.gpus = std::vector<env::ComputeCapability>{};  // no torch, no GPU: all facts known
  return target;
}

// A 3.13t loads none of a 3.13's extensions: its key says so, and a normal
// interpreter's key is what it always was.
TEST(LockFile, AFreeThreadedInterpreterIsItsOwnPython) {
  const resolve::ResolveTarget threaded = cpython_313(true);
  ASSERT_EQ(threaded.tags->tags().front().str(), "cp313-cp313t-manylinux_2_36_x86_64");
  const LockKey key = lock_key_from(threaded);
  EXPECT_EQ(key.python, "cp313t");
  EXPECT_EQ(key.platform, "manylinux_2_36_x86_64");
  EXPECT_EQ(lock_key_from(cpython_313(true, true)).python, "cp313t");  // cp313td
  EXPECT_EQ(lock_key_from(cpython_313(false)).python, "cp313");
  EXPECT_EQ(lock_key_from(cpython_313(false, true)).python, "cp313");  // cp313d
  EXPECT_EQ(lock_key_from(cuda_target()).python, "cp311");
  const auto differences = compare_keys(key, lock_key_from(cpython_313(false)));
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0].describe(), "python: locked cp313t, here cp313");
  // The header and the file name carry it, and read back.
  LockDocument document = document_for(key);
  const std::string text = render_lock(document);
  EXPECT_NE(text.find("\n# python: cp313t\n"), std::string::npos) << text;
  auto back = parse_lock_header(text, "lock.txt");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->python, "cp313t");
  EXPECT_EQ(lock_file_name(key).rfind("requirements-cp313t-manylinux_2_36_x86_64-", 0), 0u);
}

TEST(LockFile, UnknownFactsStayUnknown) {
  resolve::ResolveTarget target;
  target.torch_installed = true;  // installed, nothing readable
  const LockKey key = lock_key_from(target);
  EXPECT_EQ(key, LockKey{});
  const std::string text = render_lock(document_for(key));
  EXPECT_NE(text.find("# torch: unknown\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# gpu-archs: unknown\n"), std::string::npos) << text;
  auto back = parse_lock_header(text, "lock.txt");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, key);
}

TEST(LockFile, NoTorchAndNoGpu) {
  resolve::ResolveTarget target;
  target.gpus = std::vector<env::ComputeCapability>{};
  const LockKey key = lock_key_from(target);
  EXPECT_EQ(key.torch, "none");
  EXPECT_EQ(key.cuda, "none");
  EXPECT_EQ(key.cxx11_abi, "none");
  EXPECT_EQ(key.gpu_archs, "none");
  target.torch_installed = true;
  target.torch = *pkg::Version::parse("2.6.0+cpu");
  target.torch_cuda = std::optional<env::MajorMinor>{};
  EXPECT_EQ(lock_key_from(target).cuda, "cpu");
}

TEST(LockFile, RendersLinesAndParsesItsHeaderBack) {
  const LockKey key = lock_key_from(cuda_target());
  const std::string text = render_lock(document_for(key));
  EXPECT_EQ(text.rfind("# flashfit-lock: 1\n# python: cp311\n", 0), 0u) << text;
  EXPECT_NE(text.find("\nflash-attn @ https://h/flash_attn-2.8.3.whl --hash=sha256:" +
                      std::string(64, 'a') + "\n"),
            std::string::npos)
      << text;
  // No sha256: the line has no --hash and a comment says so.
  EXPECT_NE(text.find("--hash left out"), std::string::npos) << text;
  EXPECT_NE(text.find("\nnumpy @ https://h/numpy.whl\n"), std::string::npos) << text;
  auto back = parse_lock_header(text, "lock.txt");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, key);
  EXPECT_TRUE(compare_keys(*back, key).empty());
}

TEST(LockFile, NamesEachDifferingFact) {
  const LockKey locked = lock_key_from(cuda_target());
  resolve::ResolveTarget other = cuda_target();
  other.torch = *pkg::Version::parse("2.9.1+cu128");
  other.gpus.reset();
  const auto differences = compare_keys(locked, lock_key_from(other));
  ASSERT_EQ(differences.size(), 2u);
  EXPECT_EQ(differences[0].describe(), "torch: locked 2.8.0+cu128, here 2.9.1+cu128");
  EXPECT_EQ(differences[1].describe(),
            "gpu-archs: locked sm_80,sm_90, here unknown (an unknown fact never matches: make it "
            "readable here, e.g. a torch that imports, or `flashfit doctor` for why it is not)");
}

// Unknown here and unknown in the lock proves nothing: the two may be any two.
TEST(LockFile, AFactUnknownOnBothSidesNeverMatches) {
  LockKey locked = lock_key_from(cuda_target());
  locked.torch.reset();
  const auto differences = compare_keys(locked, locked);
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0].fact, "torch");
  EXPECT_EQ(
      differences[0].describe(),
      "torch: locked unknown, here unknown (an unknown fact never matches: lock again where it "
      "can be read)");
  EXPECT_EQ(compare_keys(LockKey{}, LockKey{}).size(), 6u);
}

// The installer's torch against the key's: the same build when the text is,
// or when the distribution's version has no label and is the installed one's
// (or, that unknown, the release is the same: PyPI's "2.8.0" is "2.8.0+cu128"
// in version.py); another otherwise.
TEST(LockFile, TorchOtherThanTheKeys) {
  LockKey key;
  key.torch = "2.8.0+cu128";
  EXPECT_EQ(torch_other_than_key(key, "torch", "2.8.0+cu128"), std::nullopt);
  EXPECT_EQ(torch_other_than_key(key, "Torch", "2.8.0+CU128"), std::nullopt);
  EXPECT_EQ(torch_other_than_key(key, "torch", "2.8.0"), std::nullopt);
  EXPECT_EQ(torch_other_than_key(key, "torch", "2.8.1"), std::optional<std::string>("2.8.1"));
  EXPECT_EQ(torch_other_than_key(key, "torch", "2.8.0+cu126"),
            std::optional<std::string>("2.8.0+cu126"));
  EXPECT_EQ(torch_other_than_key(key, "numpy", "9.9"), std::nullopt);
  // The installed distribution known: an unlabelled "2.8.0" is the key's torch
  // only when it is that distribution's version. PyTorch's cu126 index installs
  // "2.8.0+cu126" (dist-info and version.py alike): PyPI's "2.8.0" is another build.
  EXPECT_EQ(torch_other_than_key(key, "torch", "2.8.0", std::string("2.8.0")), std::nullopt);
  key.torch = "2.8.0+cu126";
  EXPECT_EQ(torch_other_than_key(key, "torch", "2.8.0", std::string("2.8.0+cu126")),
            std::optional<std::string>("2.8.0"));
  EXPECT_EQ(torch_other_than_key(key, "torch", "2.8.0+cu126", std::string("2.8.0+cu126")),
            std::nullopt);
  key.torch.reset();  // torch unknown (or none) here: any torch is another
  EXPECT_EQ(torch_other_than_key(key, "torch", "2.8.0"), std::optional<std::string>("2.8.0"));
}

TEST(LockFile, NamesItsUnknownFacts) {
  LockKey key;
  EXPECT_EQ(unknown_facts(key), (std::vector<std::string>{"python", "platform", "torch", "cuda",
                                                          "cxx11-abi", "gpu-archs"}));
  key = {"cp312", "manylinux_2_28_x86_64", "2.8.0+cu128", "12.8", "true", std::nullopt};
  EXPECT_EQ(unknown_facts(key), (std::vector<std::string>{"gpu-archs"}));
  key.gpu_archs = "none";
  EXPECT_TRUE(unknown_facts(key).empty());
}

TEST(LockFile, RefusesMalformedHeaders) {
  const std::string good = render_lock(document_for(lock_key_from(cuda_target())));
  const std::string facts = good.substr(good.find('\n') + 1);  // without the format line
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  struct Case {
    std::string text;
    std::string says;
  };
  const Case cases[] = {
      {"", "not a flashfit lock"},
      {"numpy==1.0\n", "not a flashfit lock"},
      {facts, "not a flashfit lock"},
      {"# flashfit-lock: 2\n" + facts, "unknown lock format"},
      {replace("# torch: 2.8.0+cu128\n", ""), "does not name 'torch'"},
      {replace("# cuda: 12.8\n", "# cuda: 12.8\n# cuda: 12.8\n"), "named twice"},
      {replace("# cuda: 12.8\n", "# colour: blue\n"), "unknown fact"},
      {replace("# cuda: 12.8\n", "# \x1b[31mcolour: blue\n"), "unknown fact"},
      {replace("# torch: 2.8.0+cu128", "# torch: 2.8\x1b[31m"), "malformed value"},
      {replace("# torch: 2.8.0+cu128", "# torch: 2.8 ; rm -rf /"), "malformed value"},
      {replace("# torch: 2.8.0+cu128", "# torch: " + std::string(5000, '9')), "malformed value"},
      {replace("# torch: 2.8.0+cu128", "# torch:  "), "malformed value"},
      {std::string("# flashfit-lock: 1\n\0\0", 21), "NUL"},
  };
  for (const auto& c : cases) {
    auto parsed = parse_lock_header(c.text, "req.lock");
    ASSERT_FALSE(parsed) << c.text;
    EXPECT_NE(parsed.error().message.find(c.says), std::string::npos)
        << parsed.error().message << " for " << c.text;
    EXPECT_EQ(parsed.error().kind, util::ErrorKind::input);
    EXPECT_EQ(parsed.error().context.rfind("req.lock", 0), 0u) << parsed.error().context;
    EXPECT_LT(parsed.error().message.size(), 200u);
    EXPECT_EQ(parsed.error().message.find('\x1b'), std::string::npos) << parsed.error().message;
  }
}

TEST(LockFile, ToleratesCrlfAndReadsOnlyTheHeader) {
  std::string text = render_lock(document_for(lock_key_from(cuda_target())));
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  auto parsed = parse_lock_header(crlf, "lock.txt");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, lock_key_from(cuda_target()));
}

TEST(LockFile, LocalPathsBecomeFileUrls) {
  EXPECT_EQ(as_url("/tmp/w h/x-1.0+pt2.8cpu-py3-none-any.whl"),
            "file:///tmp/w%20h/x-1.0%2Bpt2.8cpu-py3-none-any.whl");
  EXPECT_EQ(as_url("https://h/x.whl"), "https://h/x.whl");
}

TEST(LockFile, FileNamesAreReadableSafeAndDistinct) {
  const LockKey key = lock_key_from(cuda_target());
  EXPECT_EQ(lock_file_name(key),
            "requirements-cp311-manylinux_2_36_x86_64-torch2.8.0_cu128-cuda12.8-abitrue-"
            "gpusm_80.sm_90.txt");
  LockKey unknown;
  EXPECT_EQ(lock_file_name(unknown),
            "requirements-unknown-unknown-torchunknown-cudaunknown-abiunknown-gpuunknown.txt");
  // Each fact changes the name: no two of these keys share a file.
  std::set<std::string> names{lock_file_name(key)};
  for (const auto& [name, value] : key_facts(key)) {
    LockKey other = key;
    ASSERT_TRUE(set_key_fact(other, name, std::string("none")));
    EXPECT_TRUE(names.insert(lock_file_name(other)).second) << name;
  }
  for (const std::string& name : names) {
    EXPECT_EQ(
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"),
        std::string::npos)
        << name;
  }
}

TEST(LockFile, SetsFactsByNameAndRefusesBadOnes) {
  LockKey key;
  ASSERT_TRUE(set_key_fact(key, "cxx11-abi", std::string("true")));
  EXPECT_EQ(key.cxx11_abi, "true");
  ASSERT_TRUE(set_key_fact(key, "cxx11-abi", std::nullopt));
  EXPECT_EQ(key.cxx11_abi, std::nullopt);
  EXPECT_FALSE(set_key_fact(key, "torcch", std::string("2.8.0")));
  EXPECT_FALSE(set_key_fact(key, "torch", std::string("")));
  EXPECT_FALSE(set_key_fact(key, "torch", std::string("2.8 ; rm")));
  EXPECT_FALSE(set_key_fact(key, "torch", std::string("unknown")));  // that is null
  EXPECT_FALSE(set_key_fact(key, "torch", std::string(201, '1')));
}

TEST(LockFile, ParsesTheWholeLockBack) {
  LockDocument document = document_for(lock_key_from(cuda_target()));
  document.installer.front().sha256 = std::string(64, 'b');
  document.installer.push_back({"six", "1.16", "file:///w/six.whl", std::nullopt, "pip"});
  document.notes.push_back("a note");
  auto parsed = parse_lock(render_lock(document), "lock.txt");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->document.key, document.key);
  ASSERT_EQ(parsed->document.flashfit.size(), 1U);
  const LockedLine& fa = parsed->document.flashfit.front();
  EXPECT_EQ(fa.name, "flash-attn");
  EXPECT_EQ(fa.version, "2.8.3");
  EXPECT_EQ(fa.url, "https://h/flash_attn-2.8.3.whl");
  EXPECT_EQ(fa.sha256, std::string(64, 'a'));  // written lower-case
  ASSERT_EQ(parsed->document.installer.size(), 2U);
  EXPECT_EQ(parsed->document.installer[0].sha256, std::string(64, 'b'));
  EXPECT_EQ(parsed->document.installer[1].name, "six");
  EXPECT_EQ(parsed->document.installer[1].version, "1.16");  // past the "no sha256" comment
  EXPECT_EQ(parsed->document.installer[1].sha256, std::nullopt);
  EXPECT_EQ(parsed->document.notes, std::vector<std::string>{"a note"});
  EXPECT_EQ(parsed->flashfit_where.front().rfind("lock.txt:", 0), 0U);
  ASSERT_EQ(parsed->installer_where.size(), 2U);
}

TEST(LockFile, RefusesMalformedLockLines) {
  const std::string base = render_lock(document_for(lock_key_from(cuda_target())));
  auto with_line = [&](const std::string& line) {
    return parse_lock(base + line + "\n", "lock.txt");
  };
  const std::string hash = " --hash=sha256:" + std::string(64, 'c');
  struct Case {
    std::string line;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"numpy==2.1.0", "expected 'name @ URL"},
           {"numpy @ ftp://h/numpy.whl" + hash, "not http(s):// or file://"},
           {"numpy @ https://h/numpy.whl --hash=sha256:abc", "not 64 hex digits"},
           {"numpy @ https://h/numpy.whl --hash=md5:" + std::string(32, 'c'), "is not --hash"},
           {"numpy @ https://h/numpy.whl" + hash + hash, "two hashes"},
           {"numpy @ https://h/numpy.whl --no-deps", "is not --hash"},
           {"num;py @ https://h/numpy.whl", "malformed package name"},
           {"numpy @ ", "no URL"},
           {"Flash_Attn @ https://h/x.whl", "locked twice"},
       }) {
    auto parsed = with_line(c.line);
    ASSERT_FALSE(parsed) << c.line;
    EXPECT_NE(parsed.error().message.find(c.message), std::string::npos)
        << c.line << ": " << parsed.error().message;
    EXPECT_NE(parsed.error().context.find("lock.txt:"), std::string::npos) << c.line;
  }
  // A line before any section; a section repeated or out of order.
  const auto header_end = base.find("\n\n");
  auto loose = parse_lock(
      base.substr(0, header_end) + "\nnumpy @ https://h/n.whl\n" + base.substr(header_end),
      "lock.txt");
  ASSERT_FALSE(loose);
  EXPECT_NE(loose.error().message.find("outside the lock's two sections"), std::string::npos);
  auto repeated = parse_lock(base +
                                 "\n# compiled packages: the variant flashfit picked for this "
                                 "environment\n",
                             "lock.txt");
  ASSERT_FALSE(repeated);
  EXPECT_NE(repeated.error().message.find("out of order"), std::string::npos);
}

TEST(LockFile, CachePicksLockTheUrlTheBytesCameFrom) {
  EXPECT_EQ(portable_url("/c/wheels/aa/x.whl", {"/w/x.whl", "https://h/x.whl"}), "https://h/x.whl");
  EXPECT_EQ(portable_url("/c/wheels/aa/x.whl", {"/w/x.whl"}), "/w/x.whl");
  EXPECT_EQ(portable_url("/c/wheels/aa/x.whl", {}), "/c/wheels/aa/x.whl");  // built here
}

}  // namespace
}  // namespace flashfit::workflow
