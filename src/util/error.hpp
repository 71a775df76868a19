#pragma once
// The error model every layer shares: errors are values, carried in
// tl::expected up to main, which turns their kind into an exit code.

#include <string>
#include <tl/expected.hpp>
#include <utility>

namespace flashfit::util {

// What the user should conclude; main maps each kind to one exit code.
enum class ErrorKind {
  usage,        // bad command line: exit 2
  input,        // unreadable or malformed input (a file, a name, a version): exit 2
  failed,       // the task itself failed (nothing fits, a child failed): exit 1
  interrupted,  // SIGINT/SIGTERM: exit 130
  internal,     // a bug in flashfit: exit 1, and says so
};

struct Error {
  ErrorKind kind = ErrorKind::failed;
  std::string message;  // what failed, in one sentence
  std::string context;  // where: the input, file or command it concerns (may be empty)
  std::string hint;     // how to fix it (may be empty)

  // Adds an outer "where" to an error coming up from below, keeping the inner one.
  Error with_context(std::string outer) && {
    context = context.empty() ? std::move(outer) : std::move(outer) + ": " + context;
    return std::move(*this);
  }
};

template <class T>
using Result = tl::expected<T, Error>;

// Builders that keep call sites short: `return unexpected_input("...", text);`
inline tl::unexpected<Error> fail(ErrorKind kind, std::string message, std::string context = {},
                                  std::string hint = {}) {
  return tl::unexpected<Error>(
      Error{kind, std::move(message), std::move(context), std::move(hint)});
}
inline tl::unexpected<Error> input_error(std::string message, std::string context = {},
                                         std::string hint = {}) {
  return fail(ErrorKind::input, std::move(message), std::move(context), std::move(hint));
}

int exit_code(ErrorKind kind);

// "flashfit: <context>: <message>" plus an indented "hint:" line when there is one.
std::string render(const Error& error);

}  // namespace flashfit::util
