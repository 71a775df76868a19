#include "cli/command.hpp"

int main(int argc, char** argv) {
  return flashfit::cli::run(argc, argv);
}
