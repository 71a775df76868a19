#pragma once
// A real HTTP server for unit tests: tests/fixtures/http_server.py in a child
// process on 127.0.0.1 (behaviours and the request log are documented there).
// The child is started with posix_spawn (util::run_process waits for its
// children, a server must outlive the call), its port is read from the port
// file it writes once listening, and the destructor stops it with SIGTERM.
//
//   flashfit::test::HttpServer server(root, R"({"/boom": {"status": 500}})");
//   http_get({.url = server.url("/boom")});
//   EXPECT_EQ(server.requests("/boom"), 1);

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "temp_dir.hpp"

extern char** environ;

namespace flashfit::test {

class HttpServer {
 public:
  // Serves the files under `root`; `routes_json` is the --routes file's text (empty: none).
  explicit HttpServer(const std::filesystem::path& root, const std::string& routes_json = "")
      : state_("http-server") {
    // A proxy from the environment must not see requests to this server.
    const std::string no_proxy = std::getenv("no_proxy") ? std::getenv("no_proxy") : "";
    if (no_proxy.find("127.0.0.1") == std::string::npos) {
      ::setenv("no_proxy", (no_proxy.empty() ? "" : no_proxy + ",").append("127.0.0.1").c_str(), 1);
    }
    const auto port_file = state_.path() / "port";
    std::vector<std::string> args = {FLASHFIT_TEST_PYTHON,
                                     std::string(FLASHFIT_FIXTURES_DIR) + "/http_server.py",
                                     "--root",
                                     root.string(),
                                     "--port-file",
                                     port_file.string(),
                                     "--log",
                                     log_path().string()};
    if (!routes_json.empty()) {
      const auto routes = state_.path() / "routes.json";
      std::ofstream(routes) << routes_json;
      args.push_back("--routes");
      args.push_back(routes.string());
    }
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    const int rc = ::posix_spawn(&pid_, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) throw std::runtime_error("cannot start " + args[1]);

    // Bounded wait: a server that never listens fails the test, never hangs it.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(port_file);
      if (in >> port_ && port_ > 0) return;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("the test HTTP server exited before listening");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop();
    throw std::runtime_error("the test HTTP server did not start within 10 s");
  }

  ~HttpServer() { stop(); }
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:<port>" + path ("/index.html").
  std::string url(const std::string& path = "") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  // Every request so far, one "METHOD PATH RANGE" line each (RANGE "-" when absent).
  std::vector<std::string> log() const {
    std::vector<std::string> lines;
    std::ifstream in(log_path());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  // How many GETs asked for exactly `path_and_query` ("/api?page=1").
  int requests(const std::string& path_and_query) const {
    int count = 0;
    for (const std::string& line : log()) {
      std::istringstream fields(line);
      std::string method, path;
      fields >> method >> path;
      if (method == "GET" && path == path_and_query) ++count;
    }
    return count;
  }

  // Stops the server now (SIGTERM, then SIGKILL after 5 s); idempotent.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid_ = -1;
  }

 private:
  std::filesystem::path log_path() const { return state_.path() / "requests.log"; }

  TempDir state_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace flashfit::test
