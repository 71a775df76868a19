#!/usr/bin/env python3
"""sigv4_proxy.py: a verifying proxy in front of an S3-compatible server that
does not check signatures (s3rver 3.7.1: "Signature version 4 calculation is
unimplemented"), so that the integration tests prove flashfit's SigV4 signing
(libcurl's CURLOPT_AWS_SIGV4) is what AWS S3 itself would accept.

For every request it recomputes the AWS Signature Version 4 from the request
as received, written from AWS's specification ("Create a signed AWS API
request", "Authenticating Requests: Using the Authorization Header" for S3):

  canonical request = METHOD \n CanonicalURI \n CanonicalQuery \n
                      CanonicalHeaders \n SignedHeaders \n PayloadHash
  string to sign    = AWS4-HMAC-SHA256 \n X-Amz-Date \n Scope \n hex(sha256(canonical request))
  signing key       = HMAC chain over "AWS4" + secret: date, region, service, "aws4_request"

and compares it with the Authorization header's Signature. It also checks the
credential scope (date = x-amz-date's, the region and service it serves), that
x-amz-date is present and within 15 minutes of now, that host and every
x-amz-* header are signed, and, for S3, that x-amz-content-sha256 is present
and matches the body (unless UNSIGNED-PAYLOAD). A request that fails answers
403 (or 400) with an S3-style XML error and is never forwarded; one that
passes is forwarded to the upstream server and its answer relayed.

Faults, for the tests of a client's retries (after the signature is
verified, instead of forwarding): --flaky N answers 503 SlowDown to the
first N tries of each distinct METHOD TARGET (a transient failure that a
retry gets past); --fail-matching REGEX answers 500 InternalError to every
request whose target matches (a lasting one). Logged "faulted STATUS METHOD TARGET".
--drop-answer-matching REGEX forwards the first matching request but closes
the connection instead of relaying its answer (logged "dropped METHOD
TARGET"): a request that took effect and whose answer was lost.
--stall-matching REGEX holds a matching request 30 s before forwarding it
(logged "stalled METHOD TARGET" when the hold starts), for a client
interrupted in the middle of a transfer.

Standard library only. Usage:
  sigv4_proxy.py --upstream HOST:PORT --access-key K --secret-key S
                 [--region us-east-1] [--service s3] [--port-file FILE] [--lifetime SECONDS]
                 [--session-token TOKEN] [--flaky N] [--fail-matching REGEX]
                 [--stall-matching REGEX] [--drop-answer-matching REGEX]
Binds 127.0.0.1 on a free port; prints "listening on 127.0.0.1:PORT" and
writes PORT to --port-file. One line per request on stderr:
  "ok METHOD TARGET" or "refused CODE METHOD TARGET: why".
Exits after --lifetime seconds (default 900), when its parent exits, or when killed.
"""

import argparse
import datetime
import hashlib
import hmac
import http.client
import http.server
import os
import re
import sys
import threading
import time
import urllib.parse
import uuid

ALGORITHM = "AWS4-HMAC-SHA256"
UNSIGNED = "UNSIGNED-PAYLOAD"
MAX_SKEW = datetime.timedelta(minutes=15)
MAX_BODY = 1 << 30  # bounded: a larger body is refused, never read
UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
HOP_BY_HOP = frozenset(
    ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
     "trailer", "transfer-encoding", "upgrade", "expect"])


# --- The signature, as the specification computes it (pure) ---

def uri_encode(text, keep_slash):
    """AWS's UriEncode: every byte but A-Z a-z 0-9 - . _ ~ as %XY (upper-case
    hex); '/' kept in a path, encoded in a query."""
    out = []
    for byte in text.encode("utf-8") if isinstance(text, str) else text:
        if byte in UNRESERVED or (keep_slash and byte == ord("/")):
            out.append(chr(byte))
        else:
            out.append("%%%02X" % byte)
    return "".join(out)


def canonical_uri(raw_path, service):
    """The path as S3 canonicalises it: decoded once, then UriEncoded once with
    '/' kept (S3 does not normalise or double-encode, other services encode
    each segment twice)."""
    path = urllib.parse.unquote_to_bytes(raw_path or "/")
    encoded = uri_encode(path, keep_slash=True)
    if service != "s3":
        encoded = uri_encode(encoded, keep_slash=True)
    return encoded if encoded.startswith("/") else "/" + encoded


def canonical_query(raw_query):
    """Each name=value decoded, UriEncoded ('/' too), sorted by name then value."""
    pairs = []
    for part in raw_query.split("&") if raw_query else []:
        if not part:
            continue
        name, _, value = part.partition("=")
        pairs.append((uri_encode(urllib.parse.unquote_to_bytes(name), False),
                      uri_encode(urllib.parse.unquote_to_bytes(value), False)))
    pairs.sort()
    return "&".join(f"{n}={v}" for n, v in pairs)


def canonical_header_value(values):
    """Trimmed, runs of spaces folded to one; repeated headers joined by ','."""
    return ",".join(" ".join(v.strip().split()) for v in values)


def canonical_request(method, raw_path, raw_query, headers, signed, payload_hash, service):
    """`headers`: a list of (name, value) as received; `signed`: lower-case names, sorted."""
    lines = []
    for name in signed:
        values = [v for n, v in headers if n.lower() == name]
        lines.append(f"{name}:{canonical_header_value(values)}\n")
    return "\n".join([method, canonical_uri(raw_path, service), canonical_query(raw_query),
                      "".join(lines), ";".join(signed), payload_hash])


def string_to_sign(amz_date, scope, canonical):
    return "\n".join([ALGORITHM, amz_date, scope,
                      hashlib.sha256(canonical.encode("utf-8")).hexdigest()])


def signing_key(secret, date, region, service):
    key = ("AWS4" + secret).encode("utf-8")
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode("utf-8"), hashlib.sha256).digest()
    return key


def signature(secret, date, region, service, to_sign):
    return hmac.new(signing_key(secret, date, region, service), to_sign.encode("utf-8"),
                    hashlib.sha256).hexdigest()


AUTH_RE = re.compile(
    r"^AWS4-HMAC-SHA256\s+Credential=([^,\s]+)\s*,\s*SignedHeaders=([^,\s]+)\s*,"
    r"\s*Signature=([0-9a-f]{64})\s*$")


class Refusal(Exception):
    def __init__(self, status, code, message, extra=None):
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra or {}


def verify(method, target, headers, body, credentials, region, service, now=None, tokens=None):
    """Raises Refusal unless the request carries a right SigV4 signature.
    `target`: the request line's target (path?query); `headers`: [(name, value)];
    `credentials`: {access key: secret}; `now`: a UTC datetime, None to skip the clock check;
    `tokens`: {access key: session token} for temporary keys, whose requests must carry
    that token in x-amz-security-token (signed, as every x-amz-* header)."""
    def header(name):
        values = [v for n, v in headers if n.lower() == name]
        return canonical_header_value(values) if values else None

    auth = header("authorization")
    if auth is None:
        raise Refusal(403, "AccessDenied", "Anonymous requests are not accepted here")
    match = AUTH_RE.match(auth)
    if not match:
        raise Refusal(400, "AuthorizationHeaderMalformed",
                      "The authorization header is malformed: " + auth[:200])
    credential, signed_text, given = match.groups()
    parts = credential.split("/")
    if len(parts) != 5:
        raise Refusal(400, "AuthorizationHeaderMalformed",
                      "The credential must be KEY/DATE/REGION/SERVICE/aws4_request")
    access_key, date, cred_region, cred_service, terminator = parts
    if access_key not in credentials:
        raise Refusal(403, "InvalidAccessKeyId",
                      "The AWS Access Key Id you provided does not exist in our records.")
    token = (tokens or {}).get(access_key)
    if token is not None:
        given_token = header("x-amz-security-token")
        if given_token is None:
            raise Refusal(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does "
                          "not exist in our records (a temporary key needs its session token).")
        if not hmac.compare_digest(given_token.encode(), token.encode()):
            raise Refusal(400, "InvalidToken",
                          "The provided token is malformed or otherwise invalid.")
    amz_date = header("x-amz-date")
    if amz_date is None or not re.fullmatch(r"\d{8}T\d{6}Z", amz_date):
        raise Refusal(403, "AccessDenied", "AWS authentication requires a valid x-amz-date header")
    if date != amz_date[:8]:
        raise Refusal(400, "AuthorizationHeaderMalformed",
                      f"The credential's date {date} is not x-amz-date's {amz_date[:8]}")
    if cred_region != region:
        raise Refusal(400, "AuthorizationHeaderMalformed",
                      f"the region '{cred_region}' is wrong; expecting '{region}'")
    if cred_service != service or terminator != "aws4_request":
        raise Refusal(400, "AuthorizationHeaderMalformed",
                      f"the credential scope names '{cred_service}/{terminator}', "
                      f"expecting '{service}/aws4_request'")
    if now is not None:
        when = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(
            tzinfo=datetime.timezone.utc)
        if abs(now - when) > MAX_SKEW:
            raise Refusal(403, "RequestTimeTooSkewed",
                          "The difference between the request time and the current time is "
                          "too large.")
    signed = signed_text.split(";")
    if signed != sorted(set(signed)) or any(s != s.lower() for s in signed):
        raise Refusal(400, "AuthorizationHeaderMalformed",
                      "SignedHeaders must be lower-case, sorted and unique")
    present = {n.lower() for n, _ in headers}
    missing = [s for s in signed if s not in present]
    if missing:
        raise Refusal(403, "AccessDenied", "Signed headers missing: " + ",".join(missing))
    unsigned = sorted(n for n in present
                      if (n == "host" or n.startswith("x-amz-")) and n not in signed)
    if unsigned:
        raise Refusal(403, "AccessDenied",
                      "There were headers present in the request which were not signed: " +
                      ",".join(unsigned))
    if service == "s3":
        payload_hash = header("x-amz-content-sha256")
        if payload_hash is None:
            raise Refusal(400, "InvalidRequest", "Missing required header for this request: "
                          "x-amz-content-sha256")
        if payload_hash != UNSIGNED:
            if not re.fullmatch(r"[0-9a-f]{64}", payload_hash):
                raise Refusal(400, "InvalidArgument", "x-amz-content-sha256 must be "
                              "UNSIGNED-PAYLOAD or a lower-case hex SHA-256")
            if hashlib.sha256(body).hexdigest() != payload_hash:
                raise Refusal(400, "XAmzContentSHA256Mismatch", "The provided "
                              "'x-amz-content-sha256' header does not match what was computed.")
    else:
        payload_hash = hashlib.sha256(body).hexdigest()
    path, _, query = target.partition("?")
    canonical = canonical_request(method, path, query, headers, signed, payload_hash, service)
    scope = f"{date}/{region}/{service}/aws4_request"
    to_sign = string_to_sign(amz_date, scope, canonical)
    secret = credentials[access_key]
    expected = signature(secret, date, region, service, to_sign)
    if not hmac.compare_digest(expected, given):
        raise Refusal(403, "SignatureDoesNotMatch",
                      "The request signature we calculated does not match the signature you "
                      "provided. Check your key and signing method.",
                      {"StringToSign": to_sign, "CanonicalRequest": canonical})


def error_xml(refusal, resource):
    def esc(text):
        return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    extra = "".join(f"<{k}>{esc(v)}</{k}>" for k, v in refusal.extra.items())
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<Error><Code>{refusal.code}</Code><Message>{esc(refusal.message)}</Message>"
            f"<Resource>{esc(resource)}</Resource>{extra}"
            f"<RequestId>{uuid.uuid4().hex[:16].upper()}</RequestId></Error>").encode("utf-8")


# --- The proxy (thin shell) ---

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and Expect: 100-continue, as curl uses them
    server_version = "sigv4-proxy"

    def log_message(self, fmt, *args):  # one line per verdict instead (log_verdict)
        pass

    def log_verdict(self, line):
        with self.server.log_lock:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

    def answer(self, status, headers, body, head_length=None):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body) if head_length is None else head_length))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            self.answer(411, [("Content-Type", "application/xml")],
                        error_xml(Refusal(411, "MissingContentLength",
                                          "chunked bodies are not supported here"), self.path))
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            self.close_connection = True
            self.answer(400, [("Content-Type", "application/xml")],
                        error_xml(Refusal(400, "InvalidArgument", "bad Content-Length"),
                                  self.path))
            return
        body = self.rfile.read(length) if length else b""
        headers = list(self.headers.items())
        cfg = self.server.config
        try:
            verify(self.command, self.path, headers, body, cfg["credentials"], cfg["region"],
                   cfg["service"], datetime.datetime.now(datetime.timezone.utc), cfg["tokens"])
        except Refusal as refusal:
            self.log_verdict(f"refused {refusal.code} {self.command} {self.path}: "
                             f"{refusal.message}")
            self.answer(refusal.status, [("Content-Type", "application/xml")],
                        error_xml(refusal, self.path))
            return
        fault = self.fault()
        if fault:
            self.log_verdict(f"faulted {fault.status} {self.command} {self.path}")
            self.answer(fault.status, [("Content-Type", "application/xml")],
                        error_xml(fault, self.path))
            return
        if cfg["stall_matching"] and cfg["stall_matching"].search(self.path):
            self.log_verdict(f"stalled {self.command} {self.path}")
            time.sleep(30)
        drop = cfg["drop_answer_matching"]
        if drop and drop.search(self.path):
            with self.server.log_lock:
                first = self.path not in cfg["dropped"]
                cfg["dropped"].add(self.path)
            if first:
                self.log_verdict(f"dropped {self.command} {self.path}")
                self.forward(headers, body, relay=False)
                return
        self.log_verdict(f"ok {self.command} {self.path}")
        self.forward(headers, body)

    def fault(self):
        cfg = self.server.config
        if cfg["fail_matching"] and cfg["fail_matching"].search(self.path):
            return Refusal(500, "InternalError", "a lasting fault (--fail-matching)")
        if cfg["flaky"]:
            key = (self.command, self.path)
            with self.server.log_lock:
                seen = cfg["tries"].get(key, 0)
                cfg["tries"][key] = seen + 1
            if seen < cfg["flaky"]:
                return Refusal(503, "SlowDown", "a transient fault (--flaky)")
        return None

    def forward(self, headers, body, relay=True):
        host, port = self.server.config["upstream"]
        upstream = http.client.HTTPConnection(host, port, timeout=60)
        try:
            kept = {}
            for name, value in headers:
                if name.lower() not in HOP_BY_HOP:
                    kept[name] = value
            upstream.request(self.command, self.path, body=body if body else None, headers=kept)
            response = upstream.getresponse()
            data = response.read()
            if not relay:
                self.close_connection = True
                return
            relayed = [(n, v) for n, v in response.getheaders()
                       if n.lower() not in HOP_BY_HOP and n.lower() != "content-length"]
            head_length = response.getheader("Content-Length") if self.command == "HEAD" else None
            self.answer(response.status, relayed, data, head_length)
        except OSError as e:
            self.close_connection = True
            self.answer(502, [("Content-Type", "text/plain")], f"upstream: {e}\n".encode())
        finally:
            upstream.close()

    do_GET = do_PUT = do_HEAD = do_POST = do_DELETE = handle_any


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", required=True, help="HOST:PORT of the S3 server")
    parser.add_argument("--access-key", required=True)
    parser.add_argument("--secret-key", required=True)
    parser.add_argument("--region", default="us-east-1")
    parser.add_argument("--service", default="s3")
    parser.add_argument("--port-file")
    parser.add_argument("--lifetime", type=float, default=900.0)
    parser.add_argument("--session-token", default=None,
                        help="the access key is a temporary one: its requests must carry this "
                             "x-amz-security-token, signed")
    parser.add_argument("--flaky", type=int, default=0,
                        help="answer 503 to the first N tries of each METHOD TARGET")
    parser.add_argument("--fail-matching", type=re.compile, default=None,
                        help="answer 500 to every request whose target matches")
    parser.add_argument("--drop-answer-matching", type=re.compile, default=None,
                        help="forward the first request whose target matches, send no answer")
    parser.add_argument("--stall-matching", type=re.compile, default=None,
                        help="hold every request whose target matches 30 s, then forward it")
    args = parser.parse_args(argv)
    host, _, port = args.upstream.rpartition(":")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.log_lock = threading.Lock()
    server.config = {"upstream": (host, int(port)),
                     "credentials": {args.access_key: args.secret_key},
                     "tokens": ({args.access_key: args.session_token}
                                if args.session_token is not None else {}),
                     "region": args.region, "service": args.service,
                     "flaky": args.flaky, "fail_matching": args.fail_matching,
                     "stall_matching": args.stall_matching,
                     "drop_answer_matching": args.drop_answer_matching, "dropped": set(),
                     "tries": {}}
    bound = server.server_address[1]
    if args.port_file:
        temp = args.port_file + ".tmp"
        with open(temp, "w") as f:
            f.write(f"{bound}\n")
        os.replace(temp, args.port_file)
    print(f"listening on 127.0.0.1:{bound}", flush=True)
    parent = os.getppid()
    deadline = time.monotonic() + args.lifetime
    server.timeout = 0.5
    # Bounded: until the lifetime is over or the process that started it is gone.
    while time.monotonic() < deadline and os.getppid() == parent:
        server.handle_request()
    server.server_close()


if __name__ == "__main__":
    main()
