// resolve_needed against shared objects built here with gcc/g++ (DT_RUNPATH
// and DT_RPATH, a library only a preloaded directory has, one nowhere, libc
// and libstdc++ through the real ld.so.cache) and, wherever the real loader
// can answer the same question, against `ldd` run with the same
// LD_LIBRARY_PATH. Wrong-ABI and non-ELF candidates are made by building a
// 32-bit object and by patching bytes.
#include "binary/library_search.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <map>
#include <memory>

#include "../temp_dir.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;
using flashfit::test::InDirectory;
using flashfit::test::TempDir;
using namespace flashfit;
using binary::FoundVia;
using binary::LibrarySearch;
using binary::NeededLibrary;

namespace {

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const fs::path& path, std::string_view bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

util::ProcessResult run(std::vector<std::string> argv,
                        std::optional<std::string> ld_library_path = std::nullopt) {
  util::ProcessSpec spec;
  spec.argv = std::move(argv);
  if (ld_library_path) {
    spec.set_env.emplace_back("LD_LIBRARY_PATH", *ld_library_path);
  } else {
    spec.unset_env.emplace_back("LD_LIBRARY_PATH");
  }
  auto result = util::run_process(spec);
  EXPECT_TRUE(result) << spec.argv[0];
  return result ? std::move(*result) : util::ProcessResult{};
}

bool build(std::vector<std::string> argv) {
  auto result = run(argv);
  EXPECT_TRUE(result.succeeded()) << util::join(argv, " ") << "\n" << result.err;
  return result.succeeded();
}

// What the real loader says: `ldd` lines "\tname => /path (0x...)" or
// "\tname => not found", as name -> path (nullopt for not found); `text` keeps
// the whole output for its error messages.
struct LddAnswer {
  std::map<std::string, std::optional<std::string>> found;
  std::string text;
};
LddAnswer ldd(const fs::path& object, std::optional<std::string> ld_library_path = std::nullopt) {
  auto result = run({"ldd", object.string()}, std::move(ld_library_path));
  LddAnswer answer;
  answer.text = result.out + result.err;
  for (auto line : util::split(result.out, '\n')) {
    const auto arrow = line.find(" => ");
    if (arrow == std::string_view::npos) continue;
    const std::string name(util::trim(line.substr(0, arrow)));
    auto rest = line.substr(arrow + 4);
    if (util::starts_with(rest, "not found")) {
      answer.found[name] = std::nullopt;
    } else {
      answer.found[name] = std::string(rest.substr(0, rest.find(" (")));
    }
  }
  return answer;
}

const NeededLibrary* find(const std::vector<NeededLibrary>& libraries, std::string_view name) {
  for (const auto& library : libraries) {
    if (library.name == name) return &library;
  }
  return nullptr;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

template <class T>
void poke(std::string& bytes, std::size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

// The objects, built once per test program run:
//   pkg/lib/libdep.so                      what $ORIGIN/../lib finds
//   pkg/ext_runpath/ext.so, pkg/ext_rpath/ext.so
//        NEEDED libdep.so libpre.so libhashed.so libmissing.so + libstdc++, libc
//   torch/lib/libpre.so, torch/lib/libhashed-1a2b3c.so (SONAME libhashed.so)
//   alt/libdep.so                          a second good copy
//   wrong_machine/libdep.so                e_machine patched to aarch64
//   wrong_class/libdep.so                  a 32-bit i386 build
//   garbage/, too_short/ libdep.so; is_dir/libdep.so/   not loadable at all
class LibrarySearchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<TempDir>("ldsearch");
    const fs::path& root = dir_->path();
    write_bytes(root / "src/dep.c", "int dep_value(void) { return 1; }\n");
    write_bytes(root / "src/pre.c", "int pre_value(void) { return 2; }\n");
    write_bytes(root / "src/hashed.c", "int hashed_value(void) { return 3; }\n");
    write_bytes(root / "src/missing.c", "int missing_value(void) { return 4; }\n");
    write_bytes(root / "src/ext.cpp",
                "#include <string>\n"
                "extern \"C\" int dep_value(); extern \"C\" int pre_value();\n"
                "extern \"C\" int hashed_value(); extern \"C\" int missing_value();\n"
                "int ext_entry(const char* s) {\n"
                "  return static_cast<int>(std::string(s).size()) + dep_value() + pre_value() +\n"
                "         hashed_value() + missing_value();\n"
                "}\n");
    auto shared_c = [&](const char* source, const fs::path& out, const char* soname) {
      fs::create_directories(out.parent_path());
      return build({"gcc", "-shared", "-fPIC", "-o", out.string(), (root / source).string(),
                    std::string("-Wl,-soname,") + soname});
    };
    ok_ = shared_c("src/dep.c", root / "pkg/lib/libdep.so", "libdep.so") &&
          shared_c("src/pre.c", root / "torch/lib/libpre.so", "libpre.so") &&
          shared_c("src/hashed.c", root / "torch/lib/libhashed-1a2b3c.so", "libhashed.so") &&
          shared_c("src/missing.c", root / "scratch/libmissing.so", "libmissing.so");
    for (const auto& [subdir, dtags] : {std::pair{"ext_runpath", "-Wl,--enable-new-dtags"},
                                        std::pair{"ext_rpath", "-Wl,--disable-new-dtags"}}) {
      const fs::path out = root / "pkg" / subdir / "ext.so";
      fs::create_directories(out.parent_path());
      // No shell: "$ORIGIN" reaches the linker as written.
      ok_ = ok_ && build({"g++", "-shared", "-fPIC", "-o", out.string(),
                          (root / "src/ext.cpp").string(), "-Wl,--no-as-needed", dtags,
                          "-Wl,-rpath,$ORIGIN/../lib", "-L" + (root / "pkg/lib").string(), "-ldep",
                          "-L" + (root / "torch/lib").string(), "-lpre", "-l:libhashed-1a2b3c.so",
                          "-L" + (root / "scratch").string(), "-lmissing"});
    }
    if (!ok_) return;
    const std::string dep = read_bytes(root / "pkg/lib/libdep.so");
    write_bytes(root / "alt/libdep.so", dep);
    std::string other_machine = dep;
    poke(other_machine, offsetof(Elf64_Ehdr, e_machine), std::uint16_t{EM_AARCH64});
    write_bytes(root / "wrong_machine/libdep.so", other_machine);
    // A real i386 object when gcc can compile one (no 32-bit C library is
    // needed to link a library with nothing undefined), else the same
    // object with its class byte flipped, which the loader checks first.
    fs::create_directories(root / "wrong_class");
    const bool built32 =
        run({"gcc", "-m32", "-fPIC", "-c", "-o", (root / "dep32.o").string(),
             (root / "src/dep.c").string()})
            .succeeded() &&
        run({"ld", "-m", "elf_i386", "-shared", "-soname", "libdep.so", "-o",
             (root / "wrong_class/libdep.so").string(), (root / "dep32.o").string()})
            .succeeded();
    built32_ = built32;
    if (!built32) {
      std::string flipped = dep;
      flipped[EI_CLASS] = ELFCLASS32;
      write_bytes(root / "wrong_class/libdep.so", flipped);
    }
    write_bytes(root / "garbage/libdep.so",
                std::string(200, 'x') + "\nnot an ELF object, though named like one\n");
    write_bytes(root / "too_short/libdep.so",
                "\x7f"
                "ELF");
    fs::create_directories(root / "is_dir/libdep.so");
  }
  static void TearDownTestSuite() { dir_.reset(); }

  void SetUp() override { ASSERT_TRUE(ok_) << "building the test objects failed"; }

  static fs::path root() { return dir_->path(); }
  static fs::path runpath_ext() { return root() / "pkg/ext_runpath/ext.so"; }
  static fs::path rpath_ext() { return root() / "pkg/ext_rpath/ext.so"; }

  // This machine's configuration with LD_LIBRARY_PATH replaced, torch/lib preloaded.
  static LibrarySearch search_with(std::vector<std::string> ld_library_path) {
    auto search = binary::system_library_search(EM_X86_64,
                                                {{root() / "torch/lib", "loaded by import torch"}});
    search.ld_library_path = std::move(ld_library_path);
    return search;
  }

  static binary::ElfFile read(const fs::path& path) {
    auto elf = binary::read_elf(path);
    EXPECT_TRUE(elf) << path << ": " << elf.error().message;
    return elf ? std::move(*elf) : binary::ElfFile{};
  }

  // A plain x86_64 loader with the given NEEDED and search paths.
  static binary::ElfFile loader(std::vector<std::string> needed,
                                std::vector<std::string> rpath = {},
                                std::vector<std::string> runpath = {}) {
    binary::ElfFile elf;
    elf.machine = EM_X86_64;
    elf.type = ET_DYN;
    elf.needed = std::move(needed);
    elf.rpath = std::move(rpath);
    elf.runpath = std::move(runpath);
    return elf;
  }

  // Every result that does not depend on preloading agrees with ldd.
  static void expect_agrees_with_ldd(const std::vector<NeededLibrary>& resolved,
                                     const fs::path& object,
                                     std::optional<std::string> ld_library_path) {
    const auto answer = ldd(object, std::move(ld_library_path));
    for (const auto& library : resolved) {
      if (library.via == FoundVia::preloaded) continue;
      auto it = answer.found.find(library.name);
      ASSERT_NE(it, answer.found.end()) << library.name << "\n" << answer.text;
      if (library.via == FoundVia::not_found) {
        EXPECT_FALSE(it->second) << library.name << " => " << it->second.value_or("");
        continue;
      }
      ASSERT_TRUE(it->second) << library.name << " found by flashfit at " << *library.path;
      std::error_code error;
      EXPECT_TRUE(fs::equivalent(*library.path, *it->second, error))
          << library.name << ": flashfit " << *library.path << ", ldd " << *it->second;
    }
  }

  static inline std::unique_ptr<TempDir> dir_;
  static inline bool ok_ = false;
  static inline bool built32_ = false;  // wrong_class/ holds a real i386 object
};

}  // namespace

TEST_F(LibrarySearchTest, RunpathObjectResolvesLikeTheLoader) {
  const auto elf = read(runpath_ext());
  ASSERT_EQ(elf.runpath, std::vector<std::string>{"$ORIGIN/../lib"});
  ASSERT_TRUE(elf.rpath.empty());
  const fs::path origin = runpath_ext().parent_path();
  const auto resolved = binary::resolve_needed(elf, origin, search_with({}));
  ASSERT_EQ(resolved.size(), elf.needed.size());
  for (std::size_t i = 0; i < resolved.size(); ++i) EXPECT_EQ(resolved[i].name, elf.needed[i]);

  const auto* dep = find(resolved, "libdep.so");
  ASSERT_NE(dep, nullptr);
  EXPECT_EQ(dep->via, FoundVia::runpath);
  EXPECT_EQ(dep->path, origin.string() + "/../lib/libdep.so");  // as ld.so opens it
  EXPECT_EQ(dep->detail, "");

  const auto* pre = find(resolved, "libpre.so");
  ASSERT_NE(pre, nullptr);
  EXPECT_EQ(pre->via, FoundVia::preloaded);
  EXPECT_EQ(pre->path, root() / "torch/lib/libpre.so");
  EXPECT_EQ(pre->detail, "loaded by import torch");

  // Only the SONAME says that libhashed-1a2b3c.so is libhashed.so.
  const auto* hashed = find(resolved, "libhashed.so");
  ASSERT_NE(hashed, nullptr);
  EXPECT_EQ(hashed->via, FoundVia::preloaded);
  EXPECT_EQ(hashed->path, root() / "torch/lib/libhashed-1a2b3c.so");
  EXPECT_TRUE(contains(hashed->detail, "loaded by import torch")) << hashed->detail;
  EXPECT_TRUE(contains(hashed->detail, "SONAME")) << hashed->detail;

  const auto* missing = find(resolved, "libmissing.so");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->via, FoundVia::not_found);
  EXPECT_FALSE(missing->path);
  EXPECT_EQ(missing->detail, "");

  for (const char* system : {"libc.so.6", "libstdc++.so.6"}) {
    const auto* library = find(resolved, system);
    ASSERT_NE(library, nullptr) << system;
    EXPECT_EQ(library->via, FoundVia::ld_cache) << system;
  }
  expect_agrees_with_ldd(resolved, runpath_ext(), std::nullopt);
  // ldd (no torch loaded) cannot find what only the preloaded directory has.
  const auto answer = ldd(runpath_ext());
  EXPECT_FALSE(answer.found.at("libpre.so"));
  EXPECT_FALSE(answer.found.at("libhashed.so"));
  EXPECT_EQ(answer.found.at("libc.so.6"), find(resolved, "libc.so.6")->path->string());
  EXPECT_EQ(answer.found.at("libstdc++.so.6"), find(resolved, "libstdc++.so.6")->path->string());

  // Without the preloaded directory both are simply not found.
  auto bare = search_with({});
  bare.preloaded.clear();
  const auto unloaded = binary::resolve_needed(elf, origin, bare);
  EXPECT_EQ(find(unloaded, "libpre.so")->via, FoundVia::not_found);
  EXPECT_EQ(find(unloaded, "libhashed.so")->via, FoundVia::not_found);
}

TEST_F(LibrarySearchTest, RpathComesBeforeLdLibraryPathAndRunpathAfter) {
  const std::string alt = (root() / "alt").string();
  const auto rpath_elf = read(rpath_ext());
  ASSERT_EQ(rpath_elf.rpath, std::vector<std::string>{"$ORIGIN/../lib"});
  ASSERT_TRUE(rpath_elf.runpath.empty());
  const auto by_rpath =
      binary::resolve_needed(rpath_elf, rpath_ext().parent_path(), search_with({alt}));
  EXPECT_EQ(find(by_rpath, "libdep.so")->via, FoundVia::rpath);
  EXPECT_EQ(find(by_rpath, "libdep.so")->path,
            rpath_ext().parent_path().string() + "/../lib/libdep.so");
  expect_agrees_with_ldd(by_rpath, rpath_ext(), alt);

  const auto runpath_elf = read(runpath_ext());
  const auto by_env =
      binary::resolve_needed(runpath_elf, runpath_ext().parent_path(), search_with({alt}));
  EXPECT_EQ(find(by_env, "libdep.so")->via, FoundVia::ld_library_path);
  EXPECT_EQ(find(by_env, "libdep.so")->path, root() / "alt/libdep.so");
  expect_agrees_with_ldd(by_env, runpath_ext(), alt);

  // A DT_RUNPATH makes ld.so ignore the object's DT_RPATH altogether.
  const auto both = loader({"libdep.so"}, {alt}, {"$ORIGIN/../lib"});
  const auto found =
      binary::find_library("libdep.so", both, runpath_ext().parent_path(), search_with({}));
  EXPECT_EQ(found.via, FoundVia::runpath);
  // And a preloaded library wins over everything.
  auto preloaded = search_with({alt});
  preloaded.preloaded.push_back({root() / "alt", "loaded by import other"});
  const auto first =
      binary::find_library("libdep.so", rpath_elf, rpath_ext().parent_path(), preloaded);
  EXPECT_EQ(first.via, FoundVia::preloaded);
  EXPECT_EQ(first.detail, "loaded by import other");
}

TEST_F(LibrarySearchTest, OtherClassAndMachineAreSkipped) {
  const std::string wrong_machine = (root() / "wrong_machine").string();
  const std::string wrong_class = (root() / "wrong_class").string();
  const std::string path = wrong_machine + ":" + wrong_class;
  const auto elf = read(runpath_ext());
  const auto resolved = binary::resolve_needed(elf, runpath_ext().parent_path(),
                                               search_with({wrong_machine, wrong_class}));
  const auto* dep = find(resolved, "libdep.so");
  ASSERT_NE(dep, nullptr);
  EXPECT_EQ(dep->via, FoundVia::runpath);
  EXPECT_TRUE(contains(dep->detail, "skipped " + wrong_machine +
                                        "/libdep.so (ld-library-path): "
                                        "machine aarch64, not x86_64"))
      << dep->detail;
  EXPECT_TRUE(contains(dep->detail, "skipped " + wrong_class +
                                        "/libdep.so (ld-library-path): "
                                        "ELF class 32-bit, not 64-bit"))
      << dep->detail;
  expect_agrees_with_ldd(resolved, runpath_ext(), path);

  // Only wrong candidates: not found, and the detail says what was passed over.
  const auto alone =
      binary::find_library("libdep.so", loader({}), {}, search_with({wrong_machine, wrong_class}));
  EXPECT_EQ(alone.via, FoundVia::not_found);
  EXPECT_FALSE(alone.path);
  EXPECT_TRUE(contains(alone.detail, "machine aarch64")) << alone.detail;

  // A 32-bit object asking sees the 64-bit one as the other class.
  if (!built32_) GTEST_SKIP() << "gcc -m32 cannot compile here; the rest passed";
  auto i386 = loader({});
  i386.elf_class = binary::ElfClass::elf32;
  i386.machine = EM_386;
  const auto from32 = binary::find_library(
      "libdep.so", i386, {}, search_with({(root() / "pkg/lib").string(), wrong_class}));
  EXPECT_EQ(from32.via, FoundVia::ld_library_path);
  EXPECT_EQ(from32.path, root() / "wrong_class/libdep.so");
  EXPECT_TRUE(contains(from32.detail, "ELF class 64-bit, not 32-bit")) << from32.detail;
}

TEST_F(LibrarySearchTest, AnythingElseNotLoadableStopsTheLoader) {
  const auto elf = read(runpath_ext());
  const struct {
    const char* dir;
    const char* ours;
    const char* loader;  // what ld.so says when it gives up on it
  } cases[] = {
      {"garbage", "invalid ELF header", "invalid ELF header"},
      {"too_short", "file too short", "file too short"},
      {"is_dir", "is a directory", "cannot read file data"},
  };
  for (const auto& c : cases) {
    const std::string dir = (root() / c.dir).string();
    // The good copy in alt/ comes later and is never reached.
    const auto resolved = binary::resolve_needed(elf, runpath_ext().parent_path(),
                                                 search_with({dir, (root() / "alt").string()}));
    const auto* dep = find(resolved, "libdep.so");
    ASSERT_NE(dep, nullptr);
    EXPECT_EQ(dep->via, FoundVia::not_found) << c.dir;
    EXPECT_EQ(dep->path, root() / c.dir / "libdep.so") << c.dir;
    EXPECT_TRUE(contains(dep->detail, "ld.so stops at")) << dep->detail;
    EXPECT_TRUE(contains(dep->detail, c.ours)) << dep->detail;
    const auto answer = ldd(runpath_ext(), dir + ":" + (root() / "alt").string());
    EXPECT_TRUE(contains(answer.text, c.loader)) << c.dir << ":\n" << answer.text;
  }
  // In a preloaded directory such a file was just not what got loaded.
  auto search = search_with({});
  search.preloaded = {{root() / "garbage", "loaded by import junk"}};
  const auto skipped = binary::find_library("libdep.so", elf, runpath_ext().parent_path(), search);
  EXPECT_EQ(skipped.via, FoundVia::runpath);
  EXPECT_TRUE(contains(skipped.detail, "skipped")) << skipped.detail;
}

TEST_F(LibrarySearchTest, LdCacheEntriesOfTheObjectsAbiOnly) {
  const std::string good = (root() / "pkg/lib/libdep.so").string();
  const std::string other_class = (root() / "wrong_class/libdep.so").string();
  const std::string other_machine = (root() / "wrong_machine/libdep.so").string();
  LibrarySearch search;
  search.default_dirs = {root() / "alt"};
  const auto elf = loader({"libdep.so"});

  // A libc6 (i386) entry is not even tried by a 64-bit loader.
  search.ld_cache = {{"libdep.so", other_class, 0x0003, 0}, {"libdep.so", good, 0x0303, 0}};
  auto found = binary::find_library("libdep.so", elf, {}, search);
  EXPECT_EQ(found.via, FoundVia::ld_cache);
  EXPECT_EQ(found.path, good);
  EXPECT_EQ(found.detail, "");

  // A CPU-specific entry loses to the plain one, and is used when alone.
  const std::uint64_t v3 = (std::uint64_t{1} << 62) | 1;
  search.ld_cache = {{"libdep.so", other_machine, 0x0303, v3}, {"libdep.so", good, 0x0303, 0}};
  EXPECT_EQ(binary::find_library("libdep.so", elf, {}, search).path, good);
  search.ld_cache = {{"libdep.so", good, 0x0303, v3}};
  found = binary::find_library("libdep.so", elf, {}, search);
  EXPECT_EQ(found.via, FoundVia::ld_cache);
  EXPECT_TRUE(contains(found.detail, "CPU-specific")) << found.detail;

  // An entry of the right flags whose file is wrong is skipped; the loader
  // tries no second cache entry and goes on to its default directories.
  search.ld_cache = {{"libdep.so", other_machine, 0x0303, 0}, {"libdep.so", good, 0x0303, 0}};
  found = binary::find_library("libdep.so", elf, {}, search);
  EXPECT_EQ(found.via, FoundVia::default_dir);
  EXPECT_EQ(found.path, root() / "alt/libdep.so");
  EXPECT_TRUE(contains(found.detail, "(ld-cache): machine aarch64")) << found.detail;

  // Nothing anywhere.
  search.ld_cache.clear();
  search.default_dirs = {root() / "nowhere"};
  found = binary::find_library("libdep.so", elf, {}, search);
  EXPECT_EQ(found.via, FoundVia::not_found);
  EXPECT_FALSE(found.path);
}

TEST_F(LibrarySearchTest, PathsInNamesAndSearchTokens) {
  LibrarySearch search;
  search.lib_token = "lib";
  search.platform_token = "x86_64";
  const fs::path origin = root() / "pkg/ext_runpath";
  const auto elf = loader({"$ORIGIN/../lib/libdep.so", (root() / "nowhere/libdep.so").string(),
                           (root() / "garbage/libdep.so").string()});
  const auto resolved = binary::resolve_needed(elf, origin, search);
  ASSERT_EQ(resolved.size(), 3u);
  EXPECT_EQ(resolved[0].via, FoundVia::path_in_name);
  EXPECT_EQ(resolved[0].path, origin.string() + "/../lib/libdep.so");
  EXPECT_EQ(resolved[1].via, FoundVia::not_found);
  EXPECT_TRUE(contains(resolved[1].detail, "no such file")) << resolved[1].detail;
  EXPECT_EQ(resolved[2].via, FoundVia::not_found);
  EXPECT_TRUE(contains(resolved[2].detail, "invalid ELF header")) << resolved[2].detail;

  // $LIB and $PLATFORM in a RUNPATH.
  write_bytes(root() / "tokens/lib/x86_64/libdep.so", read_bytes(root() / "pkg/lib/libdep.so"));
  const auto tokens = loader({"libdep.so"}, {}, {"$ORIGIN/$LIB/${PLATFORM}"});
  auto found = binary::find_library("libdep.so", tokens, root() / "tokens", search);
  EXPECT_EQ(found.via, FoundVia::runpath);
  EXPECT_EQ(found.path, (root() / "tokens/lib/x86_64/libdep.so").string());
  // Unknown values drop the entry, as does an unknown origin.
  search.platform_token.clear();
  EXPECT_EQ(binary::find_library("libdep.so", tokens, root() / "tokens", search).via,
            FoundVia::not_found);
  search.platform_token = "x86_64";
  EXPECT_EQ(binary::find_library("libdep.so", tokens, {}, search).via, FoundVia::not_found);

  // $ORIGIN in LD_LIBRARY_PATH is the executable's directory, unknown
  // here: the entry is dropped rather than read as the object's origin.
  search.ld_library_path = {"$ORIGIN/lib/x86_64"};
  EXPECT_EQ(binary::find_library("libdep.so", loader({}), root() / "tokens", search).via,
            FoundVia::not_found);

  // No name, and a FIFO where a library should be: answers, no hang.
  EXPECT_EQ(binary::find_library("", loader({}), {}, search).detail, "empty library name");
  fs::create_directories(root() / "fifo");
  ASSERT_EQ(::mkfifo((root() / "fifo/libdep.so").c_str(), 0600), 0);
  search.ld_library_path = {(root() / "fifo").string(), (root() / "alt").string()};
  found = binary::find_library("libdep.so", loader({}), {}, search);
  EXPECT_EQ(found.via, FoundVia::ld_library_path);
  EXPECT_EQ(found.path, root() / "alt/libdep.so");
  EXPECT_TRUE(contains(found.detail, "not a regular file")) << found.detail;

  // An empty LD_LIBRARY_PATH entry is the working directory.
  search.ld_library_path = {""};
  {
    InDirectory in(root() / "pkg/lib");
    found = binary::find_library("libdep.so", loader({}), {}, search);
  }
  EXPECT_EQ(found.via, FoundVia::ld_library_path);
  EXPECT_EQ(found.path, fs::path("./libdep.so"));
}

TEST(LibrarySearchTokens, ExpandLikeLdSo) {
  LibrarySearch search;
  search.lib_token = "lib/x86_64-linux-gnu";
  search.platform_token = "x86_64";
  const fs::path origin = "/site-packages/pkg";
  auto expand = [&](std::string_view text) {
    return binary::expand_search_tokens(text, origin, search);
  };
  EXPECT_EQ(expand("$ORIGIN/../lib"), "/site-packages/pkg/../lib");
  EXPECT_EQ(expand("${ORIGIN}/lib"), "/site-packages/pkg/lib");
  EXPECT_EQ(expand("$ORIGIN"), "/site-packages/pkg");
  EXPECT_EQ(expand("/opt/$LIB/x"), "/opt/lib/x86_64-linux-gnu/x");
  EXPECT_EQ(expand("/opt/${PLATFORM}-$PLATFORM"), "/opt/x86_64-x86_64");
  // Not tokens: an identifier goes on, or the braces do not close.
  EXPECT_EQ(expand("$ORIGINAL/x"), "$ORIGINAL/x");
  EXPECT_EQ(expand("$ORIGIN_2"), "$ORIGIN_2");
  EXPECT_EQ(expand("${ORIGIN/x"), "${ORIGIN/x");
  EXPECT_EQ(expand("$HOME/lib"), "$HOME/lib");
  EXPECT_EQ(expand("/a/b$"), "/a/b$");
  EXPECT_EQ(expand("$$ORIGIN"), "$/site-packages/pkg");
  EXPECT_EQ(expand(""), "");
  EXPECT_FALSE(binary::expand_search_tokens("$ORIGIN/lib", {}, search));
  search.lib_token.clear();
  EXPECT_FALSE(expand("/usr/$LIB"));
  EXPECT_EQ(expand("/usr/lib"), "/usr/lib");
}

TEST(LibrarySearchNames, FoundViaNames) {
  EXPECT_EQ(binary::to_string(FoundVia::path_in_name), "path-in-name");
  EXPECT_EQ(binary::to_string(FoundVia::preloaded), "preloaded");
  EXPECT_EQ(binary::to_string(FoundVia::rpath), "rpath");
  EXPECT_EQ(binary::to_string(FoundVia::ld_library_path), "ld-library-path");
  EXPECT_EQ(binary::to_string(FoundVia::runpath), "runpath");
  EXPECT_EQ(binary::to_string(FoundVia::ld_cache), "ld-cache");
  EXPECT_EQ(binary::to_string(FoundVia::default_dir), "default-dir");
  EXPECT_EQ(binary::to_string(FoundVia::not_found), "not-found");
}

TEST(LibrarySearchSystem, ReadsThisMachine) {
  const char* saved = ::getenv("LD_LIBRARY_PATH");
  const std::optional<std::string> restore =
      saved ? std::optional<std::string>(saved) : std::nullopt;
  ::setenv("LD_LIBRARY_PATH", "/a:;/b;", 1);
  auto search =
      binary::system_library_search(EM_X86_64, {{"/torch/lib", "loaded by import torch"}});
  EXPECT_EQ(search.ld_library_path, (std::vector<std::string>{"/a", "", "/b", ""}));
  ::setenv("LD_LIBRARY_PATH", "", 1);
  EXPECT_TRUE(binary::system_library_search(EM_X86_64, {}).ld_library_path.empty());
  ::unsetenv("LD_LIBRARY_PATH");
  EXPECT_TRUE(binary::system_library_search(EM_X86_64, {}).ld_library_path.empty());
  if (restore) ::setenv("LD_LIBRARY_PATH", restore->c_str(), 1);

  ASSERT_EQ(search.preloaded.size(), 1u);
  EXPECT_EQ(search.preloaded[0].label, "loaded by import torch");
  auto cache = binary::read_ld_so_cache();
  ASSERT_TRUE(cache);
  EXPECT_EQ(search.ld_cache.size(), cache->size());
  EXPECT_EQ(search.default_dirs,
            (std::vector<fs::path>{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
                                   "/usr/lib64", "/lib", "/usr/lib"}));
  // This is a Debian machine: ld.so expands $LIB to the triplet directory.
  EXPECT_EQ(search.lib_token, "lib/x86_64-linux-gnu");
  EXPECT_EQ(search.platform_token, "x86_64");

  auto i386 = binary::system_library_search(EM_386, {});
  ASSERT_FALSE(i386.default_dirs.empty());
  EXPECT_EQ(i386.default_dirs.front(), fs::path("/lib/i386-linux-gnu"));
  EXPECT_EQ(i386.platform_token, "i686");
  auto unknown = binary::system_library_search(4242, {});
  EXPECT_EQ(unknown.default_dirs,
            (std::vector<fs::path>{"/lib64", "/usr/lib64", "/lib", "/usr/lib"}));
  EXPECT_EQ(unknown.platform_token, "");

  // libc through the real cache, for the real libc.
  auto libc = binary::read_elf("/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_TRUE(libc);
  auto clean = search;
  clean.ld_library_path.clear();
  auto found = binary::find_library("libc.so.6", *libc, "/lib/x86_64-linux-gnu", clean);
  EXPECT_EQ(found.via, FoundVia::ld_cache);
  EXPECT_EQ(found.path, fs::path("/lib/x86_64-linux-gnu/libc.so.6"));
}
