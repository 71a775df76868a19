"""Bad input gives a clear error naming the argument, the expected form and what was given."""

import pytest
import torch

from conftest import fa, make


def dense(**changes):
    q, k, v = make(2, 3, 4, 4, 2, 8)
    args = dict(q=q, k=k, v=v)
    args.update(changes)
    return args


@pytest.mark.parametrize("changes,kind,text", [
    (dict(q=torch.zeros(2, 3, 8)), ValueError, r"q must be 4-D \(batch, seqlen, nheads, headdim\), "
                                               r"got shape \(2, 3, 8\)"),
    (dict(k=torch.zeros(2, 4, 2, 8, 1)), ValueError, "k must be 4-D"),
    (dict(q=[[1.0]]), TypeError, "q must be a torch.Tensor, got list"),
    (dict(v=None), TypeError, "v must be a torch.Tensor, got NoneType"),
    (dict(k=torch.zeros(2, 4, 2, 8, dtype=torch.float32)), TypeError,
     "q, k and v must have one dtype, got torch.float64, torch.float32, torch.float64"),
    (dict(q=torch.zeros(2, 3, 4, 8, dtype=torch.int64), k=torch.zeros(2, 4, 2, 8,
          dtype=torch.int64), v=torch.zeros(2, 4, 2, 8, dtype=torch.int64)),
     TypeError, "q must be floating point, got torch.int64"),
    (dict(v=torch.zeros(2, 5, 2, 8, dtype=torch.float64)), ValueError,
     r"k and v must agree in \(batch, seqlen_k, nheads_k\), got \(2, 4, 2, 8\) and \(2, 5, 2, 8\)"),
    (dict(q=torch.zeros(3, 3, 4, 8, dtype=torch.float64)), ValueError,
     "q and k must have one batch size, got 3 and 2"),
    (dict(q=torch.zeros(2, 3, 4, 16, dtype=torch.float64)), ValueError,
     "q and k must have one head dim, got 16 and 8"),
    (dict(q=torch.zeros(2, 3, 5, 8, dtype=torch.float64)), ValueError,
     r"nheads of q \(5\) must be a multiple of nheads of k and v \(2\)"),
    (dict(window=(2,)), TypeError, r"window must be a pair of ints \(left, right\), got \(2,\)"),
    (dict(window=(1.5, 0)), TypeError, "window must be a pair of ints"),
    (dict(window=(-2, 0)), ValueError,
     r"window sides must be >= 0, or -1 for unbounded, got \(-2, 0\)"),
    (dict(softcap=-1.0), ValueError, r"softcap must be >= 0 \(0 = off\), got -1.0"),
    (dict(softcap=float("nan")), ValueError, "softcap must be >= 0"),
    (dict(dropout_p=1.0), ValueError, r"dropout_p must be in \[0, 1\), got 1.0"),
    (dict(dropout_p=-0.1), ValueError, "dropout_p must be in"),
    (dict(softmax_scale=float("inf")), ValueError, "softmax_scale must be a finite number or None"),
    (dict(softmax_scale="0.5"), ValueError, "softmax_scale must be a finite number or None"),
    (dict(alibi_slopes=torch.ones(3)), ValueError,
     r"alibi_slopes must have shape \(4,\) or \(2, 4\) \(nheads or batch x nheads\), got \(3,\)"),
    (dict(alibi_slopes=torch.ones(2, 2)), ValueError, "alibi_slopes must have shape"),
    (dict(alibi_slopes=[0.5] * 4), TypeError, "alibi_slopes must be a tensor"),
    (dict(alibi_slopes=torch.ones(4, dtype=torch.int32)), TypeError,
     "alibi_slopes must be floating point"),
])
def test_dense_bad_input(path, changes, kind, text):
    args = dense(**changes)
    with pytest.raises(kind, match="^flashfit_attention: " + text):
        fa.attention(args.pop("q"), args.pop("k"), args.pop("v"), **args)


def varlen(**changes):
    q = torch.zeros(5, 4, 8)
    k = torch.zeros(6, 2, 8)
    v = torch.zeros(6, 2, 8)
    args = dict(q=q, k=k, v=v, cu_seqlens_q=torch.tensor([0, 2, 5], dtype=torch.int32),
                cu_seqlens_k=torch.tensor([0, 3, 6], dtype=torch.int32), max_seqlen_q=3,
                max_seqlen_k=3)
    args.update(changes)
    return args


@pytest.mark.parametrize("changes,kind,text", [
    (dict(q=torch.zeros(1, 5, 4, 8)), ValueError, r"q must be 3-D \(total, nheads, headdim\)"),
    (dict(cu_seqlens_q=torch.tensor([0, 2, 5])), TypeError,
     r"cu_seqlens_q must have dtype torch.int32 \(as flash-attn requires\), got torch.int64"),
    (dict(cu_seqlens_k=[0, 3, 6]), TypeError, "cu_seqlens_k must be a torch.Tensor, got list"),
    (dict(cu_seqlens_q=torch.tensor([5], dtype=torch.int32)), ValueError,
     r"cu_seqlens_q must be 1-D with batch \+ 1 >= 2 entries, got shape \(1,\)"),
    (dict(cu_seqlens_k=torch.tensor([0, 6], dtype=torch.int32)), ValueError,
     r"cu_seqlens_q and cu_seqlens_k must have one length \(batch \+ 1\), got 3 and 2"),
    (dict(cu_seqlens_q=torch.tensor([1, 2, 5], dtype=torch.int32)), ValueError,
     "cu_seqlens_q must start at 0, got 1"),
    (dict(cu_seqlens_q=torch.tensor([0, 4, 3, 5], dtype=torch.int32),
          cu_seqlens_k=torch.tensor([0, 2, 4, 6], dtype=torch.int32)), ValueError,
     r"cu_seqlens_q must be non-decreasing, got \[0, 4, 3, 5\]"),
    (dict(cu_seqlens_k=torch.tensor([0, 3, 5], dtype=torch.int32)), ValueError,
     r"cu_seqlens_k must end at the total number of tokens \(6\), got 5"),
    (dict(max_seqlen_q=2), ValueError,
     "max_seqlen for cu_seqlens_q is 2 but a sequence has 3 tokens"),
    (dict(max_seqlen_k=-1), TypeError, "max_seqlen_k must be a non-negative int, got -1"),
    (dict(max_seqlen_q=3.0), TypeError, "max_seqlen_q must be a non-negative int, got 3.0"),
    (dict(v=torch.zeros(5, 2, 8)), ValueError, r"k and v must agree in \(total_k, nheads_k\)"),
    (dict(q=torch.zeros(5, 3, 8)), ValueError, r"nheads of q \(3\) must be a multiple"),
    (dict(alibi_slopes=torch.ones(3, 4)), ValueError,
     r"alibi_slopes must have shape \(4,\) or \(2, 4\)"),
])
def test_varlen_bad_input(path, changes, kind, text):
    args = varlen(**changes)
    with pytest.raises(kind, match="^flashfit_attention: " + text):
        fa.attention_varlen(**args)


def test_backend_needs_all_three_tensors():
    q, k, v = make(1, 2, 2, 1, 1, 4)
    with pytest.raises(TypeError, match="give all three tensors, or none"):
        fa.backend(q, k)


def test_force_backend_refuses_unknown_names():
    with pytest.raises(ValueError, match=r"force_backend\('cudnn'\): expected one of auto, "
                                         r"flash-attn, sdpa, math or None"):
        fa.force_backend("cudnn")
