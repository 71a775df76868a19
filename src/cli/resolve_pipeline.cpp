#include "cli/resolve_pipeline.hpp"

#include <cstdio>

#include "util/bump_heap.hpp"
#include "util/heap_pages.hpp"

namespace flashfit::cli {

resolve::CommandContext command_context(const env::Environment& environment,
                                        const EnvironmentFlags& flags) {
  return workflow::command_context(environment, flags.python);
}

util::Result<std::unique_ptr<Resolved>> run_pipeline(const PipelineOptions& options) {
  // The full catalog's candidates and judged wheels are about 17 MB of small
  // records, touched once each: one heap region on huge pages (bench/README.md).
  // Once per process: lock and install run the pipeline per package, and each
  // call would grow the heap by another pad.
  static const util::HeapPreparation heap = util::prepare_heap(std::size_t{64} << 20);
  (void)heap;
  // Its tens of thousands of small records are kept until the command ends:
  // carved in sequence, not malloc'd one by one (util/bump_heap.hpp).
  const util::BumpHeapScope small_records;
  workflow::ResolveFlowInput input;
  util::Result<resolve::Request> request =
      options.wheel_file ? workflow::request_for_file(*options.wheel_file, input.wheel_candidate)
                         : parse_request(options.spec);
  if (!request) return tl::unexpected(request.error());
  input.request = std::move(*request);
  auto config = load_user_config();
  if (!config) return tl::unexpected(config.error());
  input.config = std::move(*config);
  auto book = load_recipes(input.config);
  if (!book) return tl::unexpected(book.error());
  input.book = std::move(*book);
  input.sources = options.sources;
  // Its error, if any, is reported by the flow where it always was: after the unknown-package
  // check.
  input.probe = probe_options_from(*options.environment);
  input.explain_rejected = options.explain_rejected;
  input.rank_rejected = options.rank_rejected;
  input.probed = options.probed;
  input.python_flag = options.environment->python;
  input.require_interpreter = [&options](const env::Environment& environment) {
    return require_interpreter(
        environment, *options.environment, options.without_interpreter,
        "nothing installed is known: no torch was looked for (give --torch, --cuda and "
        "--cxx11-abi to judge against one)");
  };
  auto out = workflow::resolve_flow(std::move(input));
  if (!out) return out;
  // Diagnostics to stderr, as every diagnostic (the JSON report keeps them too).
  for (const std::string& w : (*out)->resolution.warnings) {
    if (!options.print_warnings) break;
    std::fprintf(stderr, "flashfit: warning: %s\n", w.c_str());
  }
  return out;
}

}  // namespace flashfit::cli
