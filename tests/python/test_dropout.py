"""Dropout as flash-attn applies it: on the probabilities, kept ones scaled by 1 / (1 - p),
whenever dropout_p > 0 (flash_attn_func has no training flag)."""

import pytest
import torch

from conftest import fa, lists, make
from reference import reference_dense


def one_hot_values(batch, seqlen_k, nheads_k):
    """v[b, j, h] = e_j, so output column j is the (dropped, rescaled) probability of key j."""
    v = torch.zeros(batch, seqlen_k, nheads_k, seqlen_k, dtype=torch.float64)
    for j in range(seqlen_k):
        v[:, j, :, j] = 1.0
    return v


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("causal", [False, True])
def test_each_probability_is_dropped_or_scaled(path, p, causal):
    q, k, _ = make(2, 6, 4, 4, 2, 8)
    v = one_hot_values(2, 4, 2)
    probs = torch.tensor(reference_dense(lists(q), lists(k), lists(v), causal=causal),
                         dtype=torch.float64)
    torch.manual_seed(0)
    out = fa.attention(q, k, v, dropout_p=p, causal=causal)
    kept = (out - probs / (1 - p)).abs() < 1e-9
    dropped = out == 0
    assert torch.all(kept | dropped)
    assert dropped.sum() > 0 and kept[probs > 0].sum() > 0


def test_same_seed_same_output_other_seed_other_output(path):
    q, k, v = make(2, 5, 5, 4, 4, 8)
    torch.manual_seed(3)
    a = fa.attention(q, k, v, dropout_p=0.3)
    torch.manual_seed(3)
    b = fa.attention(q, k, v, dropout_p=0.3)
    torch.manual_seed(4)
    c = fa.attention(q, k, v, dropout_p=0.3)
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_mean_over_seeds_approaches_no_dropout(path):
    q, k, v = make(1, 4, 6, 2, 2, 8)
    exact = fa.attention(q, k, v, causal=True)
    torch.manual_seed(0)
    mean = sum(fa.attention(q, k, v, causal=True, dropout_p=0.2) for _ in range(400)) / 400
    assert (mean - exact).abs().max() < 0.15  # seeded: the same numbers every run


def test_fully_masked_rows_stay_zero_with_dropout(path):
    q, k, v = make(2, 5, 2, 2, 2, 4)
    torch.manual_seed(0)
    out = fa.attention(q, k, v, causal=True, dropout_p=0.5)
    assert torch.all(out[:, :3] == 0)


def test_dropout_zero_is_exactly_no_dropout(path):
    q, k, v = make(2, 5, 7, 4, 2, 8)
    assert torch.equal(fa.attention(q, k, v, dropout_p=0.0, causal=True),
                       fa.attention(q, k, v, causal=True))
