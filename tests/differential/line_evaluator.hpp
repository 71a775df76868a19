#pragma once
// The driver every diff_<kind> program shares: one answer line per input line
// on stdin. An exception becomes an "EXCEPTION ..." answer, which the oracle
// never gives, so it shows up as a disagreement instead of a crash.

#include <exception>
#include <iostream>
#include <string>

inline int run_line_evaluator(std::string (*answer)(const std::string&)) {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    try {
      std::cout << answer(line) << '\n';
    } catch (const std::exception& error) {
      std::cout << "EXCEPTION " << error.what() << '\n';
    }
  }
  return 0;
}
