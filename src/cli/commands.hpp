#pragma once
// The define functions of every command, for the table in commands.cpp.

#include "cli/command.hpp"

namespace flashfit::cli {

Runner define_build(CLI::App& app);
Runner define_cache(CLI::App& app);
Runner define_catalog(CLI::App& app);
Runner define_completion(CLI::App& app);
Runner define_config(CLI::App& app);
Runner define_doctor(CLI::App& app);
Runner define_fallback(CLI::App& app);
Runner define_help(CLI::App& app);
Runner define_inspect(CLI::App& app);
Runner define_install(CLI::App& app);
Runner define_lock(CLI::App& app);
Runner define_publish(CLI::App& app);
Runner define_resolve(CLI::App& app);
Runner define_tags(CLI::App& app);
Runner define_uninstall(CLI::App& app);

}  // namespace flashfit::cli
