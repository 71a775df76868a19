#pragma once
// The Python program flashfit runs once per interpreter to learn its facts.

namespace flashfit::env {

// Prints one JSON object on stdout. It imports only the standard library
// (never torch, pip or setuptools), survives any single fact failing (that
// fact is null), and runs on Python 3.6 and later.
extern const char* const interpreter_script;

// Bumped whenever the script's output changes, so cached answers (the probe
// caches them on disk) from an older flashfit are not reused.
inline constexpr int kInterpreterScriptVersion = 3;

}  // namespace flashfit::env
