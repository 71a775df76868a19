#pragma once
// What a package's setup.py says about its compile units and its build
// requirements, read without running it. setup.py is a program, and an
// sdist's setup.py is whatever its author (or an attacker) wrote, so only
// plain literals count: the `sources=[...]` string list of an
// `Extension`/`CUDAExtension`/`CppExtension(...)` call (directly, or through
// a name assigned such a list exactly once), its `name=` string, and
// `setup_requires=[...]`. Anything computed (globs, f-strings, list sums,
// comprehensions) is "not literal", said with the reason, never guessed.
// Pure: the caller reads the file (bounded) and passes the text.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::build {

// One extension-module constructor call found in setup.py.
struct SetupExtension {
  std::string constructor;          // "CUDAExtension", "CppExtension", "Extension"
  std::size_t line = 0;             // 1-based line of the constructor's name
  std::optional<std::string> name;  // the module name when it is a string literal
  // The sources when they are a literal list of strings (or a name bound once
  // to one); nullopt otherwise, with the reason in `not_literal`.
  std::optional<std::vector<std::string>> sources;
  std::string not_literal;  // "sources=renamed_sources is not a literal list (line 422)"
};

// One fixed `-gencode` value setup.py passes nvcc as a string literal
// ("arch=compute_80,code=sm_80"), with the nvcc-version guards of the
// `if NAME >= Version("11.8"):` blocks around it (`else:` negates its `if`).
// Other enclosing conditions (HIP or not, SKIP_CUDA_BUILD) are not read: the
// list is what a CUDA build of the package compiles.
struct SetupGencode {
  std::string value;  // "arch=compute_80,code=sm_80"
  std::string code;   // "sm_80" (or "compute_80" for PTX only)
  std::size_t line = 0;
  std::string min_nvcc;    // "11.8": needs nvcc >= this ("" none)
  std::string below_nvcc;  // "11.6": needs nvcc < this ("" none)
};

struct SetupPyFacts {
  std::vector<SetupExtension> extensions;  // in file order
  std::vector<SetupGencode> gencode;       // literal -gencode values, in file order
  // A literal `"--threads", "4"` pair: the nvcc threads setup.py fixes.
  std::optional<unsigned> nvcc_threads;
  // setup_requires=[...] when literal: requirement strings as written.
  std::optional<std::vector<std::string>> setup_requires;
  // The string literals shaped like environment variable names
  // ("FLASH_ATTN_CUDA_ARCHS"), each once, at most 512: a variable setup.py
  // never spells is one it does not read (flash-attn before 2.7.3 has no
  // FLASH_ATTN_CUDA_ARCHS; its -gencode list is fixed).
  std::vector<std::string> variable_names;
};

// Errors (input): text that is not Python source as far as literals go (an
// unterminated string, unbalanced brackets, a NUL byte, more than 1 MiB),
// a literal source path that is absolute, has a ".." component or a control
// character, or a list of more than 10,000 entries. The message names the
// line; setup.py is never run.
util::Result<SetupPyFacts> read_setup_py(std::string_view text);

// Pure: the `code=` targets ("sm_80") setup.py's fixed -gencode list gives
// with nvcc MAJOR.MINOR, in file order, without repeats. Empty when setup.py
// has no literal -gencode values.
std::vector<std::string> gencode_for_nvcc(const std::vector<SetupGencode>& gencode, unsigned major,
                                          unsigned minor);

}  // namespace flashfit::build
