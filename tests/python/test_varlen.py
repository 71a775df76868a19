"""attention_varlen against the reference, per sequence: empty and length-1 sequences, causal
alignment per sequence, windows clamped by max_seqlen_k, ALiBi per batch."""

import pytest
import torch

from conftest import assert_close, fa, lists, slopes
from reference import reference_varlen

TOL = 1e-5


def packed(lengths_q, lengths_k, nheads, nheads_k, head_dim, v_dim=None, dtype=torch.float64,
           seed=0):
    g = torch.Generator().manual_seed(seed)
    v_dim = head_dim if v_dim is None else v_dim
    total_q, total_k = sum(lengths_q), sum(lengths_k)
    q = torch.randn(total_q, nheads, head_dim, generator=g, dtype=torch.float64).to(dtype)
    k = torch.randn(total_k, nheads_k, head_dim, generator=g, dtype=torch.float64).to(dtype)
    v = torch.randn(total_k, nheads_k, v_dim, generator=g, dtype=torch.float64).to(dtype)
    cu_q = torch.tensor([0] + list(torch.tensor(lengths_q).cumsum(0).tolist()), dtype=torch.int32)
    cu_k = torch.tensor([0] + list(torch.tensor(lengths_k).cumsum(0).tolist()), dtype=torch.int32)
    return q, k, v, cu_q, cu_k


BATCHES = [
    ([3, 5, 2], [3, 5, 2]),          # self-attention, mixed lengths
    ([1, 4, 0, 6], [5, 4, 3, 2]),    # length-1 and empty queries; more queries than keys
    ([2, 3, 1], [0, 6, 1]),          # a sequence without keys: its rows are zero
    ([0, 0], [0, 0]),                # nothing at all
    ([7], [2]),                      # one sequence, sq > sk
]


@pytest.mark.parametrize("lengths", BATCHES, ids=["self", "mixed", "nokeys", "empty", "one"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("window", [(-1, -1), (1, 0), (2, 2), (0, 0)])
@pytest.mark.parametrize("heads", [(4, 4), (8, 1)])
def test_varlen(path, lengths, causal, window, heads):
    lq, lk = lengths
    q, k, v, cu_q, cu_k = packed(lq, lk, heads[0], heads[1], 8, seed=len(lq))
    max_q, max_k = max(lq), max(lk)
    out = fa.attention_varlen(q, k, v, cu_q, cu_k, max_q, max_k, causal=causal, window=window)
    assert out.shape == (sum(lq), heads[0], 8)
    ref = reference_varlen(lists(q), lists(k), lists(v), cu_q.tolist(), cu_k.tolist(), max_k,
                           causal=causal, window=window, v_dim=8)
    assert_close(out, ref, TOL)


@pytest.mark.parametrize("shape", ["heads", "batch-heads"])
@pytest.mark.parametrize("softcap", [0.0, 2.0])
def test_varlen_alibi_softcap(shape, softcap):
    lq, lk = [2, 1, 4], [5, 3, 4]
    q, k, v, cu_q, cu_k = packed(lq, lk, 4, 2, 8, v_dim=6)
    s = slopes((4,) if shape == "heads" else (3, 4))
    out = fa.attention_varlen(q, k, v, cu_q, cu_k, 4, 5, causal=True, softcap=softcap,
                              alibi_slopes=s)
    ref = reference_varlen(lists(q), lists(k), lists(v), cu_q.tolist(), cu_k.tolist(), 5,
                           causal=True, softcap=softcap, alibi_slopes=lists(s), v_dim=6)
    assert_close(out, ref, TOL)


def test_window_clamped_by_max_seqlen_k_not_per_sequence(path):
    """flash-attn clamps window sides against max_seqlen_k: right=3 stays bounded for a sequence
    of 2 keys when max_seqlen_k is 6, so its first queries (sq=8) see nothing."""
    lq, lk = [8, 1], [2, 6]
    q, k, v, cu_q, cu_k = packed(lq, lk, 2, 2, 4)
    out = fa.attention_varlen(q, k, v, cu_q, cu_k, 8, 6, window=(-1, 3))
    ref = reference_varlen(lists(q), lists(k), lists(v), cu_q.tolist(), cu_k.tolist(), 6,
                           window=(-1, 3), v_dim=4)
    assert_close(out, ref, TOL)
    assert torch.all(out[:3] == 0) and torch.all(out[3:8] != 0)


def test_varlen_equals_dense_per_sequence(path):
    lq, lk = [3, 6], [7, 2]
    q, k, v, cu_q, cu_k = packed(lq, lk, 4, 1, 8)
    out = fa.attention_varlen(q, k, v, cu_q, cu_k, 6, 7, causal=True)
    for b in range(2):
        qb = q[cu_q[b]:cu_q[b + 1]].unsqueeze(0)
        kb = k[cu_k[b]:cu_k[b + 1]].unsqueeze(0)
        vb = v[cu_k[b]:cu_k[b + 1]].unsqueeze(0)
        dense = fa.attention(qb, kb, vb, causal=True)[0]
        assert torch.allclose(out[cu_q[b]:cu_q[b + 1]], dense, atol=1e-12)


def test_backend_names_the_class_attention_varlen_uses(caplog):
    """backend() on varlen tensors answers for the same shape class (one log line for both)."""
    import logging
    caplog.set_level(logging.INFO, logger="flashfit_attention")
    q, k, v, cu_q, cu_k = packed([2, 3], [2, 3], 2, 2, 4)
    fa.attention_varlen(q, k, v, cu_q, cu_k, 3, 3, causal=True)
    choice = fa.backend(q, k, v, causal=True)
    assert choice.name in ("sdpa", "math")
    assert len(caplog.records) == 1
