"""Every option and their combinations against the independent reference, to 1e-5 in float64."""

import itertools

import pytest
import torch

from conftest import assert_close, fa, lists, make, slopes
from reference import reference_dense

TOL = 1e-5
# (seqlen_q, seqlen_k): square, fewer queries (decode, chunked prefill), more queries than keys
# (the bottom-right causal mask leaves the first rows without keys), single rows and columns.
SHAPES = [(5, 5), (3, 8), (8, 3), (1, 6), (6, 1), (4, 9)]
WINDOWS = [(-1, -1), (2, 0), (0, 2), (1, 1), (0, 0), (3, -1), (-1, 1), (100, 100), (7, 2)]


def run(q, k, v, **options):
    return fa.attention(q, k, v, **options)


def expect(q, k, v, **options):
    return reference_dense(lists(q), lists(k), lists(v), v_dim=v.shape[3], **options)


@pytest.mark.parametrize("seqlens", SHAPES)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("window", WINDOWS)
def test_masks(path, seqlens, causal, window):
    q, k, v = make(2, seqlens[0], seqlens[1], 4, 2, 8, seed=sum(seqlens))
    out = run(q, k, v, causal=causal, window=window)
    assert_close(out, expect(q, k, v, causal=causal, window=window), TOL)
    assert fa.backend(q, k, v, causal=causal, window=window).name == path


@pytest.mark.parametrize("heads", [(4, 4), (8, 1), (16, 2), (6, 3), (8, 2)],
                         ids=["MHA", "MQA-8:1", "GQA-8:1", "GQA-2:1", "GQA-4:1"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seqlens", [(4, 4), (3, 7), (7, 3)])
def test_heads(path, heads, causal, seqlens):
    q, k, v = make(2, seqlens[0], seqlens[1], heads[0], heads[1], 8, seed=heads[0])
    out = run(q, k, v, causal=causal)
    assert_close(out, expect(q, k, v, causal=causal), TOL)


def test_gqa_groups_are_contiguous(path):
    """Query heads 0-3 read kv head 0 and 4-7 kv head 1 (not 0,2,4,6 / 1,3,5,7)."""
    q, k, v = make(1, 3, 5, 8, 2, 4)
    v = torch.zeros_like(v)
    v[:, :, 1] = 1.0  # kv head 1 is all ones, kv head 0 all zeros
    out = run(q, k, v)
    assert torch.all(out[:, :, :4] == 0)
    assert torch.allclose(out[:, :, 4:], torch.ones_like(out[:, :, 4:]))


@pytest.mark.parametrize("softcap", [0.5, 3.0, 30.0])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seqlens", [(5, 5), (2, 7), (7, 2)])
def test_softcap(softcap, causal, seqlens):
    # Large scores so the cap matters (tanh saturates).
    q, k, v = make(2, seqlens[0], seqlens[1], 4, 2, 8, spread=4.0)
    out = run(q, k, v, causal=causal, softcap=softcap)
    assert_close(out, expect(q, k, v, causal=causal, softcap=softcap), TOL)
    assert fa.backend(q, k, v, softcap=softcap).name == "math"


@pytest.mark.parametrize("shape", ["heads", "batch-heads"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("window", [(-1, -1), (2, 1), (1, 0)])
@pytest.mark.parametrize("seqlens", [(4, 4), (3, 8), (8, 3)])
def test_alibi(path, shape, causal, window, seqlens):
    q, k, v = make(2, seqlens[0], seqlens[1], 4, 2, 8)
    s = slopes((4,) if shape == "heads" else (2, 4))
    out = run(q, k, v, causal=causal, window=window, alibi_slopes=s)
    assert_close(out, expect(q, k, v, causal=causal, window=window, alibi_slopes=lists(s)), TOL)


@pytest.mark.parametrize("scale", [None, 0.1, 1.0, 2.5])
def test_softmax_scale(path, scale):
    q, k, v = make(2, 4, 6, 4, 4, 16)
    out = run(q, k, v, softmax_scale=scale, causal=True)
    assert_close(out, expect(q, k, v, softmax_scale=scale, causal=True), TOL)


def test_value_head_dim_may_differ(path):
    q, k, v = make(2, 4, 5, 4, 2, 8, v_dim=12)
    out = run(q, k, v, causal=True)
    assert out.shape == (2, 4, 4, 12)
    assert_close(out, expect(q, k, v, causal=True), TOL)


COMBOS = list(itertools.product(
    [(3, 9), (9, 3), (6, 6)], [False, True], [(-1, -1), (2, 1), (4, 0)], [0.0, 2.0],
    [None, "heads", "batch-heads"], [(8, 1), (8, 4)]))


@pytest.mark.parametrize("seqlens,causal,window,softcap,alibi,heads", COMBOS)
def test_combinations(seqlens, causal, window, softcap, alibi, heads):
    """Everything at once, on the path the dispatcher picks (auto)."""
    q, k, v = make(2, seqlens[0], seqlens[1], heads[0], heads[1], 8, seed=7, spread=2.0)
    s = None if alibi is None else slopes((heads[0],) if alibi == "heads" else (2, heads[0]))
    options = dict(causal=causal, window=window, softcap=softcap)
    out = run(q, k, v, alibi_slopes=s, dropout_p=0.0, **options)
    ref = expect(q, k, v, alibi_slopes=None if s is None else lists(s), **options)
    assert_close(out, ref, TOL)


def test_causal_is_bottom_right_not_top_left(path):
    """seqlen_q=2, seqlen_k=5: row 0 sees keys 0..3, row 1 all five (flash-attn's docstring).
    SDPA's is_causal would let row 0 see key 0 only."""
    q, k, v = make(1, 2, 5, 1, 1, 4)
    v = torch.zeros(1, 5, 1, 5, dtype=torch.float64)
    for j in range(5):
        v[0, j, 0, j] = 1.0  # output column j = probability of key j
    probs = run(q, k, v, causal=True)[0, :, 0]
    assert probs[0, 4] == 0 and probs[0, :4].min() > 0
    assert probs[1].min() > 0


def test_fully_masked_rows_are_zero(path):
    """seqlen_q=5, seqlen_k=2 causal: rows 0-2 see no key and are exactly 0, gradients finite."""
    q, k, v = make(2, 5, 2, 2, 1, 4)
    q.requires_grad_(True)
    k.requires_grad_(True)
    v.requires_grad_(True)
    out = run(q, k, v, causal=True)
    assert torch.all(out[:, :3] == 0)
    assert torch.all(out[:, 3:] != 0)
    out.sum().backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all()
    assert torch.all(q.grad[:, :3] == 0)


def test_window_leaving_rows_empty(path):
    """window (0, 0) with seqlen_q > seqlen_k: only the diagonal i + sk - sq == j, so the first
    rows have no key."""
    q, k, v = make(1, 6, 3, 2, 2, 4)
    out = run(q, k, v, window=(0, 0))
    assert torch.all(out[:, :3] == 0)
    assert_close(out, expect(q, k, v, window=(0, 0)), TOL)


def test_right_side_beyond_seqlen_k_is_unbounded(path):
    """flash_api.cpp turns window_size_right >= seqlen_k into -1: with sq=10, sk=2, right=2 the
    first row sees both keys (the raw formula would give it none)."""
    q, k, v = make(1, 10, 2, 1, 1, 4)
    out = run(q, k, v, window=(-1, 2))
    assert torch.all(out != 0)
    assert_close(out, expect(q, k, v, window=(-1, 2)), TOL)


@pytest.mark.parametrize("seqlens", [(0, 4), (4, 0), (0, 0)])
def test_empty_sequences(path, seqlens):
    q, k, v = make(2, seqlens[0], seqlens[1], 4, 2, 8)
    out = run(q, k, v, causal=True)
    assert out.shape == (2, seqlens[0], 4, 8)
    assert torch.all(out == 0)


def test_output_layout_matches_flash_attn(path):
    q, k, v = make(2, 3, 4, 4, 2, 8)
    out = run(q, k, v)
    assert out.is_contiguous() and out.dtype == q.dtype and out.shape == (2, 3, 4, 8)


def test_float32_inputs(path):
    q, k, v = make(2, 5, 7, 4, 1, 16, dtype=torch.float32)
    out = run(q, k, v, causal=True, window=(3, 0))
    assert out.dtype == torch.float32
    assert_close(out, expect(q, k, v, causal=True, window=(3, 0)), 2e-6, 2e-6)
