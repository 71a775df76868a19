#!/usr/bin/env python3
"""Per-call cost of flashfit_attention's dispatch against calling SDPA by hand.

    PYTHON bench/fallback_bench.py [--calls N] [--rounds R]

PYTHON is any interpreter with torch >= 2.0 (.pydeps/torch-cpu/bin/python). Tiny CPU tensors
(flash-attn's layout (batch, seqlen, nheads, headdim) = (1, 4, 2, 8), float32) keep the kernel
cheap, so the difference is the wrapper. For each case, R rounds of N calls, interleaved:

  by hand   F.scaled_dot_product_attention(q.transpose(1, 2), ...).transpose(1, 2), as a user
            with flash-attn's layout writes it
  dispatch  flashfit_attention.attention(q, k, v, ...)

and prints a markdown table of the medians over rounds (ns per call) and their difference, the
dispatch overhead, whose goal is < 2 us per call after the first. It also times the first call of a
new shape class (the decision, logged once). Times are the thread's CPU time (time.thread_time_ns),
with one intra-op thread, as in the tests. Tests never
assert on time; this is the record behind bench/README.md.
"""

import argparse
import os
import platform
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import flashfit_attention as fa  # noqa: E402

torch.set_num_threads(1)


def timed(fn, calls):
    # This thread's CPU time, not wall time: on a small shared machine the wall clock mostly
    # measures how long other processes held the cores.
    start = time.thread_time_ns()
    for _ in range(calls):
        fn()
    return (time.thread_time_ns() - start) / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    if not hasattr(F, "scaled_dot_product_attention"):
        sys.exit("fallback_bench: torch %s has no SDPA (needs torch >= 2.0)" % torch.__version__)
    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, 4, 2, 8, generator=g)
    k = torch.randn(1, 4, 2, 8, generator=g)
    v = torch.randn(1, 4, 2, 8, generator=g)
    k1, v1 = k[:, :, :1].contiguous(), v[:, :, :1].contiguous()
    sdpa = F.scaled_dot_product_attention

    cases = [
        ("plain", lambda: sdpa(q.transpose(1, 2), k.transpose(1, 2),
                               v.transpose(1, 2)).transpose(1, 2),
         lambda: fa.attention(q, k, v)),
        ("causal, seqlen_q == seqlen_k", lambda: sdpa(q.transpose(1, 2), k.transpose(1, 2),
                                                      v.transpose(1, 2),
                                                      is_causal=True).transpose(1, 2),
         lambda: fa.attention(q, k, v, causal=True)),
        ("GQA 2:1 (enable_gqa)", lambda: sdpa(q.transpose(1, 2), k1.transpose(1, 2),
                                              v1.transpose(1, 2),
                                              enable_gqa=True).transpose(1, 2),
         lambda: fa.attention(q, k1, v1)),
    ]
    print("torch %s, Python %s, %s; %d rounds x %d calls, medians\n"
          % (torch.__version__, platform.python_version(), platform.machine(), args.rounds,
             args.calls))
    print("backend: %s\n" % fa.backend(q, k, v))
    print("load average before: %s\n" % open("/proc/loadavg").read().split()[0])
    print("| case | by hand (ns/call) | dispatch (ns/call) | overhead (ns/call) |")
    print("| --- | --- | --- | --- |")
    for name, by_hand, dispatch in cases:
        dispatch()  # the first call decides; measured below
        hand_times, dispatch_times = [], []
        for _ in range(args.rounds):
            hand_times.append(timed(by_hand, args.calls))
            dispatch_times.append(timed(dispatch, args.calls))
        hand, ours = statistics.median(hand_times), statistics.median(dispatch_times)
        print("| %s | %.0f | %.0f | %.0f |" % (name, hand, ours, ours - hand))

    firsts = []
    for _ in range(args.rounds):
        fa.force_backend(None)  # forget the decisions
        start = time.thread_time_ns()
        fa.attention(q, k, v, causal=True)
        firsts.append(time.thread_time_ns() - start)
    print("\nfirst call of a shape class (decision + log + call): median %.1f us"
          % (statistics.median(firsts) / 1000.0))


if __name__ == "__main__":
    main()
