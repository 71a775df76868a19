#include "util/dynamic_library.hpp"

#include <gtest/gtest.h>

#include <cstring>

using flashfit::util::DynamicLibrary;

TEST(DynamicLibrary, MissingLibraryIsAnErrorNamingIt) {
  auto lib = DynamicLibrary::open("libflashfit-no-such-library.so.1");
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().message.rfind("cannot load libflashfit-no-such-library.so.1: ", 0), 0u)
      << lib.error().message;
}

TEST(DynamicLibrary, SymbolsByTheirCSignature) {
  auto lib = DynamicLibrary::open("libc.so.6");
  ASSERT_TRUE(lib) << lib.error().message;
  auto* length = lib->symbol<std::size_t(const char*)>("strlen");
  ASSERT_NE(length, nullptr);
  EXPECT_EQ(length("flashfit"), 8u);
  EXPECT_EQ(lib->symbol<int()>("flashfit_no_such_symbol"), nullptr);
}

TEST(DynamicLibrary, MovesOwnership) {
  auto lib = DynamicLibrary::open("libc.so.6");
  ASSERT_TRUE(lib);
  DynamicLibrary moved = std::move(*lib);
  EXPECT_TRUE(moved.is_open());
  EXPECT_FALSE(lib->is_open());  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_EQ(lib->symbol<int()>("abort"), nullptr);
  DynamicLibrary empty;
  empty = std::move(moved);
  EXPECT_TRUE(empty.is_open());
  EXPECT_EQ(empty.name(), "libc.so.6");
}

TEST(DynamicLibrary, KeepLoadedReleasesWithoutClosing) {
  auto lib = DynamicLibrary::open("libc.so.6");
  ASSERT_TRUE(lib);
  lib->keep_loaded();
  EXPECT_FALSE(lib->is_open());
  EXPECT_EQ(lib->symbol<int()>("abort"), nullptr);
}
