#include "util/error.hpp"

namespace flashfit::util {

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage:
    case ErrorKind::input:
      return 2;
    case ErrorKind::interrupted:
      return 130;
    case ErrorKind::failed:
    case ErrorKind::internal:
      return 1;
  }
  return 1;
}

std::string render(const Error& error) {
  std::string out = "flashfit: ";
  if (error.kind == ErrorKind::internal) out += "internal error (please report it): ";
  if (!error.context.empty()) out += error.context + ": ";
  out += error.message;
  if (!error.hint.empty()) out += "\n  hint: " + error.hint;
  return out;
}

}  // namespace flashfit::util
