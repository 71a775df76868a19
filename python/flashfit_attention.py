"""flashfit_attention: flash-attn's attention call, on flash-attn when it can run, else PyTorch.

One file, torch its only dependency: install the wheel flashfit builds, or copy this file into a
project (`flashfit fallback --vendor DIR`). The semantics are flash-attn 2.x's `flash_attn_func`
and `flash_attn_varlen_func`:

- layout (batch, seqlen, nheads, headdim); varlen: (total, nheads, headdim) with cu_seqlens;
- causal masks aligned to the bottom-right corner when seqlen_q != seqlen_k (flash-attn >= 2.1),
  where SDPA's is_causal aligns top-left;
- sliding windows: query i sees keys [i + sk - sq - left, i + sk - sq + right], -1 = unbounded,
  a side >= seqlen_k (max_seqlen_k for varlen) unbounded, causal => right = 0;
- GQA/MQA: query head h reads key/value head h // (nheads // nheads_k);
- softcap > 0: score = softcap * tanh(scale * q.k / softcap), before ALiBi and masks;
- ALiBi: -slope * |i + sk - sq - j| added to the score; slopes (nheads,) or (batch, nheads);
- dropout on the probabilities, kept ones scaled by 1 / (1 - p), always applied when p > 0;
- a query that sees no key (fully masked row, empty key sequence) gives zeros.

Paths, decided once per process and shape class, logged once (logger "flashfit_attention"):
"flash-attn" when it imports and can run the call; "SDPA" (torch >= 2.0) with exact masks;
"math", an eager float32-accumulating path, for softcap, ALiBi in 16-bit types, and torch < 2.0.
`backend(...)` says which path runs and why. docs/fallback.md in flashfit has the details.
"""

import logging
import math
import os

import torch
import torch.nn.functional as F

__version__ = "0.1.0"
__all__ = ["attention", "attention_varlen", "backend", "force_backend", "Backend"]

_log = logging.getLogger("flashfit_attention")


def _version_tuple(text):
    parts = []
    for piece in text.split("+")[0].split(".")[:3]:
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        parts.append(int(digits) if digits else 0)
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


_TORCH = _version_tuple(torch.__version__)
_HAS_SDPA = hasattr(F, "scaled_dot_product_attention")
_SDPA = getattr(F, "scaled_dot_product_attention", None)
_SDPA_HAS_SCALE = _TORCH >= (2, 1, 0)  # the `scale` argument
_SDPA_HAS_GQA = _TORCH >= (2, 5, 0)  # the `enable_gqa` argument
try:  # torch >= 2.2: a bottom-right causal mask SDPA's fused kernels understand
    from torch.nn.attention.bias import causal_lower_right as _causal_lower_right
except ImportError:  # pragma: no cover - depends on the torch version
    _causal_lower_right = None

_LOW_PRECISION = (torch.float16, torch.bfloat16)
_PATHS = ("auto", "flash-attn", "sdpa", "math")

# flash-attn releases that first had each feature (its CHANGELOG / README).
_FLASH_FEATURES = (
    ("causal with seqlen_q != seqlen_k (bottom-right)", 1, (2, 1, 0)),
    ("sliding windows", 2, (2, 3, 0)),
    ("softcap", 4, (2, 6, 0)),
    ("ALiBi", 8, (2, 4, 0)),
    ("deterministic", 32, (2, 4, 0)),
)
# Feature bits of a shape class.
_F_MISALIGNED_CAUSAL, _F_WINDOW, _F_SOFTCAP, _F_ALIBI, _F_DROPOUT, _F_DETERMINISTIC = (
    1, 2, 4, 8, 16, 32)


class Backend(str):
    """The sentence saying which path runs and why (a str, so it prints and formats as one), with
    .name: "flash-attn", "sdpa" or "math", and .reason: the sentence again."""

    def __new__(cls, name, reason):
        self = str.__new__(cls, reason)
        self.name = name
        return self

    @property
    def reason(self):
        return str.__str__(self)

    def __repr__(self):
        return "Backend(%r, %r)" % (self.name, self.reason)


# --------------------------------------------------------------------------- flash-attn probing

_flash = None  # None: not probed yet; else (functions or None, version tuple, reason)


def _probe_flash():
    """Imports flash-attn once; remembers why it could not."""
    global _flash
    if _flash is None:
        try:
            import flash_attn
            from flash_attn import flash_attn_func, flash_attn_varlen_func
        except ModuleNotFoundError as error:
            missing = getattr(error, "name", None) or ""
            if missing == "flash_attn" or missing.startswith("flash_attn."):
                _flash = (None, None, "flash-attn not installed")
            else:
                _flash = (None, None, "flash-attn does not import (%s)" % _first_line(error))
        except Exception as error:  # ImportError (undefined symbol, GLIBC), OSError, ...
            _flash = (None, None, "flash-attn does not import (%s: %s)"
                      % (type(error).__name__, _first_line(error)))
        else:
            version = str(getattr(flash_attn, "__version__", "0"))
            _flash = ((flash_attn_func, flash_attn_varlen_func), _version_tuple(version), version)
    return _flash


def _first_line(error):
    text = str(error).strip().splitlines()
    return text[0][:200] if text else type(error).__name__


def _flash_blocker(device, dtype, head_dim, v_head_dim, features):
    """Why flash-attn cannot run a call of this class, or None with its description."""
    if device.type != "cuda":
        return "%s tensors (flash-attn needs CUDA)" % device.type, None
    if dtype not in _LOW_PRECISION:
        return "%s input" % str(dtype).replace("torch.", ""), None
    functions, version, label = _probe_flash()
    if functions is None:
        return label, None
    where = "ROCm"
    if not getattr(torch.version, "hip", None):
        major, minor = torch.cuda.get_device_capability(device)
        if major < 8:
            return "compute capability %d.%d < 8.0" % (major, minor), None
        where = "sm_%d%d" % (major, minor)
    if head_dim > 256 or v_head_dim > 256:
        return "head dim %d > 256" % max(head_dim, v_head_dim), None
    if head_dim != v_head_dim:
        return "value head dim %d != query head dim %d" % (v_head_dim, head_dim), None
    for name, bit, needed in _FLASH_FEATURES:
        if features & bit and version < needed:
            return ("flash-attn %s has no %s (needs %d.%d)" % (label, name, needed[0], needed[1]),
                    None)
    if features & _F_SOFTCAP and features & _F_DROPOUT:
        return "flash-attn has no dropout with softcap", None
    return None, "flash-attn %s on %s" % (label, where)


# --------------------------------------------------------------------------- the decision

_forced = os.environ.get("FLASHFIT_ATTENTION_BACKEND", "auto").strip().lower() or "auto"
if _forced not in _PATHS:
    raise ValueError("FLASHFIT_ATTENTION_BACKEND=%r: expected one of %s"
                     % (_forced, ", ".join(_PATHS)))
_decisions = {}  # shape class -> Backend


def force_backend(name=None):
    """Pins the path ("flash-attn", "sdpa", "math"; None or "auto" = decide) and forgets every
    decision made so far. Meant for tests and benchmarks; FLASHFIT_ATTENTION_BACKEND does the
    same for a whole process. A pinned path that cannot run a call raises instead of falling
    back."""
    global _forced
    name = "auto" if name is None else str(name).lower()
    if name not in _PATHS:
        raise ValueError("force_backend(%r): expected one of %s or None"
                         % (name, ", ".join(_PATHS)))
    _forced = name
    _decisions.clear()


def _decide(key, device, dtype, head_dim, v_head_dim, features):
    blocker, flash_label = _flash_blocker(device, dtype, head_dim, v_head_dim, features)
    if _forced == "flash-attn":
        if blocker is not None:
            raise RuntimeError("flashfit_attention: flash-attn was forced but cannot run this "
                               "call: " + blocker)
        return Backend("flash-attn", flash_label)
    if blocker is None and _forced == "auto":
        return Backend("flash-attn", flash_label)
    why_not_flash = blocker if blocker is not None else "forced %s" % _forced
    math_reason = None
    if not _HAS_SDPA:
        math_reason = "torch < 2.0"
    elif features & _F_SOFTCAP:
        math_reason = "softcap needs a score hook SDPA lacks"
    elif features & _F_ALIBI and dtype in _LOW_PRECISION:
        math_reason = "ALiBi in %s (a 16-bit mask would round the bias)" % str(dtype)[6:]
    elif _forced == "math":
        math_reason = "forced"
    if math_reason is None:
        return Backend("sdpa", "SDPA: " + why_not_flash)
    if math_reason == "forced":
        return Backend("math", "math: forced")
    return Backend("math", "math: %s; %s" % (math_reason, why_not_flash))


def _lookup(key, device, dtype, head_dim, v_head_dim, features):
    choice = _decisions.get(key)
    if choice is None:
        choice = _decide(key, device, dtype, head_dim, v_head_dim, features)
        _decisions[key] = choice
        _log.info("%s (%s %s, head dim %d, features %s)", choice.reason, device,
                  str(dtype)[6:], head_dim, _describe_features(features))
    return choice


def _describe_features(features):
    names = [n for n, bit in (("misaligned-causal", 1), ("window", 2), ("softcap", 4),
                              ("alibi", 8), ("dropout", 16), ("deterministic", 32))
             if features & bit]
    return "+".join(names) or "none"


def backend(q=None, k=None, v=None, *, causal=False, window=(-1, -1), softcap=0.0,
            dropout_p=0.0, alibi_slopes=None, deterministic=False):
    """Which path a call runs and why, as a Backend (str() is the sentence, e.g.
    "flash-attn 2.8.3 on sm_89", "SDPA: flash-attn not installed", "SDPA: float32 input",
    "math: torch < 2.0"). Without tensors: a float16 call with head dim 64 on the current CUDA
    device, or on the CPU when there is none."""
    if q is None:
        device = torch.device("cuda", torch.cuda.current_device()) \
            if torch.cuda.is_available() else torch.device("cpu")
        features = _features(causal, 1, 1, window, softcap, dropout_p, alibi_slopes,
                             deterministic)
        return _decide(None, device, torch.float16, 64, 64, features)
    if k is None or v is None:
        raise TypeError("backend(q, k, v): give all three tensors, or none")
    varlen = q.dim() == 3
    seq_axis = 0 if varlen else 1
    features = _features(causal, q.shape[seq_axis], k.shape[seq_axis], window, softcap,
                         dropout_p, alibi_slopes, deterministic)
    if varlen and causal:  # as attention_varlen: lengths differ per sequence in general
        features |= _F_MISALIGNED_CAUSAL
    key = (q.device, q.dtype, q.shape[-1], v.shape[-1], features, varlen)
    return _lookup(key, q.device, q.dtype, q.shape[-1], v.shape[-1], features)


def _features(causal, seqlen_q, seqlen_k, window, softcap, dropout_p, alibi_slopes,
              deterministic):
    features = 0
    if causal and seqlen_q != seqlen_k:
        features |= _F_MISALIGNED_CAUSAL
    if window[0] >= 0 or window[1] >= 0:
        features |= _F_WINDOW
    if softcap > 0.0:
        features |= _F_SOFTCAP
    if alibi_slopes is not None:
        features |= _F_ALIBI
    if dropout_p > 0.0:
        features |= _F_DROPOUT
    if deterministic:
        features |= _F_DETERMINISTIC
    return features


# --------------------------------------------------------------------------- argument checks

def _fail(kind, text):
    raise kind("flashfit_attention: " + text)


def _check_options(window, softcap, dropout_p, softmax_scale, alibi_slopes, batch, nheads):
    if window != (-1, -1):
        if (not isinstance(window, (tuple, list)) or len(window) != 2
                or not all(isinstance(w, int) and not isinstance(w, bool) for w in window)):
            _fail(TypeError, "window must be a pair of ints (left, right), got %r" % (window,))
        if window[0] < -1 or window[1] < -1:
            _fail(ValueError, "window sides must be >= 0, or -1 for unbounded, got %r"
                  % (tuple(window),))
    if not softcap >= 0.0:
        _fail(ValueError, "softcap must be >= 0 (0 = off), got %r" % (softcap,))
    if not 0.0 <= dropout_p < 1.0:
        _fail(ValueError, "dropout_p must be in [0, 1), got %r" % (dropout_p,))
    if softmax_scale is not None and not (isinstance(softmax_scale, (int, float))
                                          and math.isfinite(softmax_scale)):
        _fail(ValueError, "softmax_scale must be a finite number or None, got %r"
              % (softmax_scale,))
    if alibi_slopes is not None:
        if not isinstance(alibi_slopes, torch.Tensor):
            _fail(TypeError, "alibi_slopes must be a tensor of shape (nheads,) or "
                  "(batch, nheads), got %s" % type(alibi_slopes).__name__)
        shape = tuple(alibi_slopes.shape)
        if shape != (nheads,) and shape != (batch, nheads):
            _fail(ValueError, "alibi_slopes must have shape (%d,) or (%d, %d) (nheads or batch x "
                  "nheads), got %s" % (nheads, batch, nheads, shape))
        if not alibi_slopes.is_floating_point():
            _fail(TypeError, "alibi_slopes must be floating point, got %s" % alibi_slopes.dtype)


def _check_tensors(q, k, v, rank, layout):
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            _fail(TypeError, "%s must be a torch.Tensor, got %s" % (name, type(t).__name__))
        if t.dim() != rank:
            _fail(ValueError, "%s must be %d-D %s, got shape %s"
                  % (name, rank, layout, tuple(t.shape)))
    if not q.is_floating_point():
        _fail(TypeError, "q must be floating point, got %s" % q.dtype)
    if k.dtype != q.dtype or v.dtype != q.dtype:
        _fail(TypeError, "q, k and v must have one dtype, got %s, %s, %s"
              % (q.dtype, k.dtype, v.dtype))
    if k.device != q.device or v.device != q.device:
        _fail(ValueError, "q, k and v must be on one device, got %s, %s, %s"
              % (q.device, k.device, v.device))


def _dense_shape_error(q, k, v):
    _check_tensors(q, k, v, 4, "(batch, seqlen, nheads, headdim)")
    qs, ks, vs = tuple(q.shape), tuple(k.shape), tuple(v.shape)
    if ks[:3] != vs[:3]:
        _fail(ValueError, "k and v must agree in (batch, seqlen_k, nheads_k), got %s and %s"
              % (ks, vs))
    if qs[0] != ks[0]:
        _fail(ValueError, "q and k must have one batch size, got %d and %d" % (qs[0], ks[0]))
    if qs[3] != ks[3]:
        _fail(ValueError, "q and k must have one head dim, got %d and %d" % (qs[3], ks[3]))
    if ks[2] == 0 or qs[2] % ks[2]:
        _fail(ValueError, "nheads of q (%d) must be a multiple of nheads of k and v (%d)"
              % (qs[2], ks[2]))
    if qs[3] == 0:
        _fail(ValueError, "head dim must be positive")
    _fail(ValueError, "q, k and v do not fit together: %s, %s, %s" % (qs, ks, vs))


# --------------------------------------------------------------------------- masks

def _normalize_window(causal, window, seqlen_k):
    """flash-attn's rule: a side >= seqlen_k is unbounded (-1); causal makes the right side 0."""
    left, right = window
    if left >= seqlen_k:
        left = -1
    if right >= seqlen_k:
        right = -1
    if causal:
        right = 0
    return left, right


_mask_cache = {}


def _allowed(seqlen_q, seqlen_k, left, right, device):
    """(allowed, row_ok, rows_all_ok) for one (seqlen_q, seqlen_k) block, cached: allowed[i, j]
    is True where query i sees key j, with fully masked rows opened (their output is zeroed
    after, so no NaN reaches the softmax or its gradient)."""
    key = (seqlen_q, seqlen_k, left, right, device)
    hit = _mask_cache.get(key)
    if hit is not None:
        return hit
    rows = torch.arange(seqlen_q).unsqueeze(1)
    cols = torch.arange(seqlen_k).unsqueeze(0)
    offset = cols - rows - (seqlen_k - seqlen_q)  # j - (i + sk - sq)
    allowed = torch.ones(seqlen_q, seqlen_k, dtype=torch.bool)
    if right >= 0:
        allowed &= offset <= right
    if left >= 0:
        allowed &= offset >= -left
    row_ok = allowed.any(dim=1) if seqlen_k > 0 else torch.zeros(seqlen_q, dtype=torch.bool)
    rows_all_ok = bool(row_ok.all())
    if not rows_all_ok:
        allowed |= ~row_ok.unsqueeze(1)
    hit = (allowed.to(device), row_ok.to(device), rows_all_ok)
    if len(_mask_cache) >= 16:  # a few shapes recur in practice; long ones are large
        _mask_cache.clear()
    _mask_cache[key] = hit
    return hit


def _alibi_bias(slopes, seqlen_q, seqlen_k, dtype, device):
    """-slope * |i + sk - sq - j| as (batch or 1, nheads, seqlen_q, seqlen_k)."""
    rows = torch.arange(seqlen_q, device=device).unsqueeze(1)
    cols = torch.arange(seqlen_k, device=device).unsqueeze(0)
    distance = (rows + (seqlen_k - seqlen_q) - cols).abs().to(dtype)
    slopes = slopes.to(device=device, dtype=dtype)
    if slopes.dim() == 1:
        slopes = slopes.unsqueeze(0)
    return -slopes.unsqueeze(-1).unsqueeze(-1) * distance


# --------------------------------------------------------------------------- fallback paths

def _sdpa(q, k, v, qs, ks, left, right, dropout_p, softmax_scale, alibi_slopes):
    """(B, Sq, H, D) through scaled_dot_product_attention with flash-attn's masks. The plain
    case is one SDPA call with positional arguments: this runs on every call."""
    seqlen_q, nheads, seqlen_k, nheads_k = qs[1], qs[2], ks[1], ks[2]
    qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    kwargs = {}
    if nheads != nheads_k:
        if _SDPA_HAS_GQA:
            kwargs["enable_gqa"] = True
        else:
            kt = kt.repeat_interleave(nheads // nheads_k, dim=1)
            vt = vt.repeat_interleave(nheads // nheads_k, dim=1)
    if softmax_scale is not None:  # None: SDPA's default, 1/sqrt(headdim), is flash-attn's
        if _SDPA_HAS_SCALE:
            kwargs["scale"] = softmax_scale
        else:
            qt = qt * (softmax_scale * math.sqrt(qs[3]))
    row_ok = None
    mask = None
    is_causal = False
    if alibi_slopes is None and left < 0 and right < 0:
        pass
    elif alibi_slopes is None and left < 0 and right == 0 and seqlen_q == seqlen_k:
        is_causal = True  # square: top-left and bottom-right agree
    elif (alibi_slopes is None and left < 0 and right == 0 and seqlen_q < seqlen_k
          and _causal_lower_right is not None):
        mask = _causal_lower_right(seqlen_q, seqlen_k)  # no empty rows when sq < sk
    else:
        allowed, row_ok, rows_all_ok = _allowed(seqlen_q, seqlen_k, left, right, q.device)
        if rows_all_ok:
            row_ok = None
        mask = allowed
        if alibi_slopes is not None:
            bias = _alibi_bias(alibi_slopes, seqlen_q, seqlen_k, q.dtype, q.device)
            mask = bias.masked_fill(~allowed, float("-inf"))
    if kwargs:
        out = _SDPA(qt, kt, vt, mask, dropout_p, is_causal, **kwargs)
    else:
        out = _SDPA(qt, kt, vt, mask, dropout_p, is_causal)
    out = out.transpose(1, 2)
    if row_ok is not None:
        out = out * row_ok.view(1, seqlen_q, 1, 1).to(out.dtype)
    return out.contiguous()


def _math(q, k, v, qs, ks, left, right, dropout_p, softmax_scale, softcap, alibi_slopes):
    """(B, Sq, H, D) eagerly, accumulating in float32 for 16-bit inputs as flash-attn does."""
    seqlen_q, nheads, seqlen_k, nheads_k = qs[1], qs[2], ks[1], ks[2]
    scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(qs[3])
    compute = torch.float32 if q.dtype in _LOW_PRECISION else q.dtype
    qf, kf, vf = q.to(compute), k.to(compute), v.to(compute)
    if nheads != nheads_k:
        kf = kf.repeat_interleave(nheads // nheads_k, dim=2)
        vf = vf.repeat_interleave(nheads // nheads_k, dim=2)
    scores = torch.einsum("bqhd,bkhd->bhqk", qf, kf) * scale
    if softcap > 0.0:
        scores = torch.tanh(scores / softcap) * softcap
    if alibi_slopes is not None:
        scores = scores + _alibi_bias(alibi_slopes, seqlen_q, seqlen_k, compute, q.device)
    row_ok = None
    if left >= 0 or right >= 0:
        allowed, row_ok, rows_all_ok = _allowed(seqlen_q, seqlen_k, left, right, q.device)
        if rows_all_ok:
            row_ok = None
        scores = scores.masked_fill(~allowed, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    if dropout_p > 0.0:
        probs = F.dropout(probs, p=dropout_p, training=True)
    out = torch.einsum("bhqk,bkhd->bqhd", probs, vf)
    if row_ok is not None:
        out = out * row_ok.view(1, seqlen_q, 1, 1).to(compute)
    return out.to(q.dtype).contiguous()


def _run_fallback(choice, q, k, v, qs, ks, left, right, dropout_p, softmax_scale, softcap,
                  alibi_slopes):
    if not (qs[0] and qs[1] and ks[1]):  # nothing to compute, or no key: every row is zero
        return q.new_zeros(qs[0], qs[1], qs[2], v.shape[3])
    if choice.name == "sdpa":
        return _sdpa(q, k, v, qs, ks, left, right, dropout_p, softmax_scale, alibi_slopes)
    return _math(q, k, v, qs, ks, left, right, dropout_p, softmax_scale, softcap, alibi_slopes)


def _flash_kwargs(window, softcap, alibi_slopes, deterministic, device):
    """Only what differs from the defaults, so that older flash-attn releases accept the call."""
    extra = {}
    if window != (-1, -1):
        extra["window_size"] = tuple(window)
    if softcap > 0.0:
        extra["softcap"] = softcap
    if alibi_slopes is not None:
        extra["alibi_slopes"] = alibi_slopes.to(device=device, dtype=torch.float32).contiguous()
    if deterministic:
        extra["deterministic"] = True
    return extra


def _flash_failed(key, choice, error):
    """A flash-attn call that fails at once (no kernel image, arch check) falls back for good."""
    text = str(error)
    if not any(marker in text for marker in ("no kernel image", "FlashAttention",
                                             "only supports", "not supported")):
        return None
    fallback = Backend("math" if not _HAS_SDPA else "sdpa",
                       "SDPA: flash-attn failed at its first call (%s)" % _first_line(error))
    if fallback.name == "math":
        fallback = Backend("math", "math: torch < 2.0; flash-attn failed at its first call (%s)"
                           % _first_line(error))
    _decisions[key] = fallback
    _log.warning("%s", fallback.reason)
    return fallback


# --------------------------------------------------------------------------- public calls

def attention(q, k, v, *, causal=False, window=(-1, -1), softcap=0.0, dropout_p=0.0,
              softmax_scale=None, alibi_slopes=None, deterministic=False):
    """flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size=window, softcap,
    alibi_slopes, deterministic) with the same semantics on whichever path can run it.

    q: (batch, seqlen_q, nheads, headdim); k, v: (batch, seqlen_k, nheads_k, headdim[_v]),
    nheads a multiple of nheads_k. Returns (batch, seqlen_q, nheads, headdim_v), q's dtype."""
    try:
        qs, ks, vs = q.shape, k.shape, v.shape
        batch, seqlen_q, nheads, head_dim = qs
        batch_k, seqlen_k, nheads_k, head_dim_k = ks
        batch_v, seqlen_v, nheads_v, head_dim_v = vs
        dtype = q.dtype
        ok = (batch == batch_k == batch_v and seqlen_k == seqlen_v and nheads_k == nheads_v
              and head_dim == head_dim_k and nheads_k and head_dim and not nheads % nheads_k
              and k.dtype == dtype and v.dtype == dtype)
    except (AttributeError, TypeError, ValueError):
        ok = False
    if not ok:
        _dense_shape_error(q, k, v)  # raises
    plain = (softmax_scale is None and alibi_slopes is None and window == (-1, -1)
             and not (softcap or dropout_p or deterministic))
    if plain:  # the common call: nothing but maybe causal
        features = _F_MISALIGNED_CAUSAL if causal and seqlen_q != seqlen_k else 0
    else:
        _check_options(window, softcap, dropout_p, softmax_scale, alibi_slopes, batch, nheads)
        features = _features(causal, seqlen_q, seqlen_k, window, softcap, dropout_p,
                             alibi_slopes, deterministic)
    device = q.device
    key = (device, dtype, head_dim, head_dim_v, features, False)
    choice = _decisions.get(key)
    if plain and choice is not None:
        # The hot path, decided before: one call, as a user would write it by hand.
        name = choice.name
        if name == "flash-attn":
            return _flash[0][0](q, k, v, 0.0, None, causal)
        if name == "sdpa" and not features and batch and seqlen_q and seqlen_k:
            qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
            if nheads == nheads_k:
                return _SDPA(qt, kt, vt, None, 0.0, causal).transpose(1, 2).contiguous()
            if _SDPA_HAS_GQA:
                return _SDPA(qt, kt, vt, None, 0.0, causal,
                             enable_gqa=True).transpose(1, 2).contiguous()
    first = choice is None
    if first:  # once per shape class: what the fast checks above leave out
        _check_tensors(q, k, v, 4, "(batch, seqlen, nheads, headdim)")
        choice = _lookup(key, device, dtype, head_dim, head_dim_v, features)
    if choice.name == "flash-attn":
        call = _probe_flash()[0][0]
        extra = _flash_kwargs(window, softcap, alibi_slopes, deterministic, device) \
            if features & ~_F_MISALIGNED_CAUSAL else {}
        if not first:
            return call(q, k, v, dropout_p, softmax_scale, causal, **extra)
        try:
            return call(q, k, v, dropout_p, softmax_scale, causal, **extra)
        except RuntimeError as error:
            choice = _flash_failed(key, choice, error)
            if choice is None:
                raise
    if causal or window != (-1, -1):
        left, right = _normalize_window(causal, window, seqlen_k)
    else:
        left = right = -1
    return _run_fallback(choice, q, k, v, qs, ks, left, right, dropout_p, softmax_scale, softcap,
                         alibi_slopes)


def _check_cu_seqlens(name, cu, total, batch):
    if not isinstance(cu, torch.Tensor):
        _fail(TypeError, "%s must be a torch.Tensor, got %s" % (name, type(cu).__name__))
    if cu.dim() != 1 or cu.shape[0] < 2:
        _fail(ValueError, "%s must be 1-D with batch + 1 >= 2 entries, got shape %s"
              % (name, tuple(cu.shape)))
    if cu.dtype != torch.int32:
        _fail(TypeError, "%s must have dtype torch.int32 (as flash-attn requires), got %s"
              % (name, cu.dtype))
    if batch is not None and cu.shape[0] != batch + 1:
        _fail(ValueError, "cu_seqlens_q and cu_seqlens_k must have one length (batch + 1), got "
              "%d and %d" % (batch + 1, cu.shape[0]))


def _check_cu_values(name, values, total, max_seqlen):
    if values[0] != 0:
        _fail(ValueError, "%s must start at 0, got %d" % (name, values[0]))
    lengths = [b - a for a, b in zip(values, values[1:])]
    if any(n < 0 for n in lengths):
        _fail(ValueError, "%s must be non-decreasing, got %s" % (name, values))
    if values[-1] != total:
        _fail(ValueError, "%s must end at the total number of tokens (%d), got %d"
              % (name, total, values[-1]))
    longest = max(lengths)
    if longest > max_seqlen:
        _fail(ValueError, "max_seqlen for %s is %d but a sequence has %d tokens"
              % (name, max_seqlen, longest))
    return lengths


def attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, *,
                     causal=False, window=(-1, -1), softcap=0.0, dropout_p=0.0,
                     softmax_scale=None, alibi_slopes=None, deterministic=False):
    """flash_attn_varlen_func with the same semantics: q (total_q, nheads, headdim), k and v
    (total_k, nheads_k, headdim[_v]); sequence b is q[cu_seqlens_q[b]:cu_seqlens_q[b + 1]] and
    likewise for k and v; cu_seqlens int32, batch + 1 entries. Masks align per sequence; window
    sides >= max_seqlen_k are unbounded, as in flash-attn."""
    _check_tensors(q, k, v, 3, "(total, nheads, headdim)")
    qs, ks, vs = tuple(q.shape), tuple(k.shape), tuple(v.shape)
    if ks[:2] != vs[:2]:
        _fail(ValueError, "k and v must agree in (total_k, nheads_k), got %s and %s" % (ks, vs))
    if qs[2] != ks[2] or not qs[2]:
        _fail(ValueError, "q and k must have one positive head dim, got %d and %d"
              % (qs[2], ks[2]))
    if not ks[1] or qs[1] % ks[1]:
        _fail(ValueError, "nheads of q (%d) must be a multiple of nheads of k and v (%d)"
              % (qs[1], ks[1]))
    _check_cu_seqlens("cu_seqlens_q", cu_seqlens_q, qs[0], None)
    batch = cu_seqlens_q.shape[0] - 1
    _check_cu_seqlens("cu_seqlens_k", cu_seqlens_k, ks[0], batch)
    for name, value in (("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            _fail(TypeError, "%s must be a non-negative int, got %r" % (name, value))
    _check_options(window, softcap, dropout_p, softmax_scale, alibi_slopes, batch, qs[1])
    features = _features(causal, max_seqlen_q, max_seqlen_k, window, softcap, dropout_p,
                         alibi_slopes, deterministic)
    if causal:
        features |= _F_MISALIGNED_CAUSAL  # lengths differ per sequence in general
    device = q.device
    key = (device, q.dtype, qs[2], vs[2], features, True)
    choice = _decisions.get(key)
    first = choice is None
    if first:
        choice = _lookup(key, device, q.dtype, qs[2], vs[2], features)
    if choice.name == "flash-attn":
        call = _probe_flash()[0][1]
        extra = _flash_kwargs(window, softcap, alibi_slopes, deterministic, device)
        try:
            return call(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                        dropout_p, softmax_scale, causal, **extra)
        except RuntimeError as error:
            if not first:
                raise
            choice = _flash_failed(key, choice, error)
            if choice is None:
                raise
    starts_q = cu_seqlens_q.tolist()  # one host copy each (a sync on a GPU)
    starts_k = cu_seqlens_k.tolist()
    lengths_q = _check_cu_values("cu_seqlens_q", starts_q, qs[0], max_seqlen_q)
    lengths_k = _check_cu_values("cu_seqlens_k", starts_k, ks[0], max_seqlen_k)
    left, right = _normalize_window(causal, window, max_seqlen_k)
    out = q.new_zeros(qs[0], qs[1], vs[2])
    for b in range(batch):
        if lengths_q[b] == 0:
            continue
        qb = q[starts_q[b]:starts_q[b + 1]].unsqueeze(0)
        kb = k[starts_k[b]:starts_k[b + 1]].unsqueeze(0)
        vb = v[starts_k[b]:starts_k[b + 1]].unsqueeze(0)
        slopes = alibi_slopes
        if slopes is not None and slopes.dim() == 2:
            slopes = slopes[b]
        out[starts_q[b]:starts_q[b + 1]] = _run_fallback(
            choice, qb, kb, vb, qb.shape, kb.shape, left, right, dropout_p, softmax_scale,
            softcap, slopes)[0]
    return out
