#!/usr/bin/env python3
"""The SigV4 verifier of sigv4_proxy.py checked against signatures it did not
compute: AWS's published examples (the SigV4 test suite's get-vanilla request
and the S3 developer guide's "Authorization header" examples: GET Object with
a Range header, PUT Object with a '$' in the key, GET Bucket with a query),
plus tampered copies of them that must be refused, and the proxy itself end
to end (a refused request never reaches the upstream server; a right one is
relayed). Run by ctest as integration.sigv4_proxy_selfcheck."""

import datetime
import hashlib
import http.client
import http.server
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sigv4_proxy as p  # noqa: E402

EMPTY = hashlib.sha256(b"").hexdigest()

# The AWS SigV4 test suite (aws-sig-v4-test-suite), get-vanilla.
SUITE_KEYS = {"AKIDEXAMPLE": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}
GET_VANILLA = {
    "method": "GET", "target": "/", "body": b"", "region": "us-east-1", "service": "service",
    "headers": [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z"),
                ("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/"
                 "service/aws4_request, SignedHeaders=host;x-amz-date, Signature="
                 "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")],
}
GET_VANILLA_CANONICAL = ("GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
                         "host;x-amz-date\n" + EMPTY)
GET_VANILLA_CANONICAL_SHA = "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63"

# The S3 developer guide's examples (sig-v4-header-based-auth).
S3_KEYS = {"AKIAIOSFODNN7EXAMPLE": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
S3_SCOPE = "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request"
S3_GET_OBJECT = {
    "method": "GET", "target": "/test.txt", "body": b"", "region": "us-east-1", "service": "s3",
    "headers": [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                ("x-amz-content-sha256", EMPTY), ("x-amz-date", "20130524T000000Z"),
                ("Authorization", f"AWS4-HMAC-SHA256 Credential={S3_SCOPE},SignedHeaders=host;"
                 "range;x-amz-content-sha256;x-amz-date,Signature="
                 "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")],
}
S3_PUT_BODY = b"Welcome to Amazon S3."
S3_PUT_OBJECT = {
    "method": "PUT", "target": "/test%24file.text", "body": S3_PUT_BODY, "region": "us-east-1",
    "service": "s3",
    "headers": [("Host", "examplebucket.s3.amazonaws.com"),
                ("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-date", "20130524T000000Z"),
                ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
                ("x-amz-content-sha256", hashlib.sha256(S3_PUT_BODY).hexdigest()),
                ("Authorization", f"AWS4-HMAC-SHA256 Credential={S3_SCOPE},SignedHeaders=date;"
                 "host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,Signature="
                 "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")],
}
S3_LIST = {
    "method": "GET", "target": "/?max-keys=2&prefix=J", "body": b"", "region": "us-east-1",
    "service": "s3",
    "headers": [("Host", "examplebucket.s3.amazonaws.com"), ("x-amz-content-sha256", EMPTY),
                ("x-amz-date", "20130524T000000Z"),
                ("Authorization", f"AWS4-HMAC-SHA256 Credential={S3_SCOPE},SignedHeaders=host;"
                 "x-amz-content-sha256;x-amz-date,Signature="
                 "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")],
}


def check(example, keys, **changes):
    r = dict(example, **changes)
    p.verify(r["method"], r["target"], r["headers"], r["body"], keys, r["region"], r["service"],
             None, r.get("tokens"))


def replace_header(headers, name, value):
    return [(n, value if n.lower() == name else v) for n, v in headers]


class PublishedVectors(unittest.TestCase):
    def test_get_vanilla_canonical_request_and_signature(self):
        canonical = p.canonical_request("GET", "/", "", GET_VANILLA["headers"],
                                        ["host", "x-amz-date"], EMPTY, "service")
        self.assertEqual(canonical, GET_VANILLA_CANONICAL)
        self.assertEqual(hashlib.sha256(canonical.encode()).hexdigest(),
                         GET_VANILLA_CANONICAL_SHA)
        check(GET_VANILLA, SUITE_KEYS)

    def test_s3_examples(self):
        for example in (S3_GET_OBJECT, S3_PUT_OBJECT, S3_LIST):
            with self.subTest(example["method"] + " " + example["target"]):
                check(example, S3_KEYS)

    def test_uri_encode(self):
        self.assertEqual(p.uri_encode("a+b c/d~", True), "a%2Bb%20c/d~")
        self.assertEqual(p.uri_encode("a/b", False), "a%2Fb")
        self.assertEqual(p.canonical_uri("/b/x%2bcu.whl", "s3"), "/b/x%2Bcu.whl")
        self.assertEqual(p.canonical_query("prefix=a%2F&delimiter=%2F&list-type=2"),
                         "delimiter=%2F&list-type=2&prefix=a%2F")


class TamperedRequests(unittest.TestCase):
    def refused(self, code, example, keys, **changes):
        with self.assertRaises(p.Refusal) as caught:
            check(example, keys, **changes)
        self.assertEqual(caught.exception.code, code, caught.exception.message)

    def test_wrong_secret(self):
        self.refused("SignatureDoesNotMatch", S3_GET_OBJECT,
                     {"AKIAIOSFODNN7EXAMPLE": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ"})

    def test_changed_request(self):
        self.refused("SignatureDoesNotMatch", S3_GET_OBJECT, S3_KEYS, target="/test.txu")
        self.refused("SignatureDoesNotMatch", S3_GET_OBJECT, S3_KEYS, method="HEAD")
        self.refused("SignatureDoesNotMatch", S3_LIST, S3_KEYS, target="/?max-keys=3&prefix=J")
        self.refused("SignatureDoesNotMatch", S3_GET_OBJECT, S3_KEYS,
                     headers=replace_header(S3_GET_OBJECT["headers"], "range", "bytes=0-19"))
        self.refused("SignatureDoesNotMatch", GET_VANILLA, SUITE_KEYS,
                     headers=replace_header(GET_VANILLA["headers"], "host", "example.com"))
        # The path as S3 encodes it: the same key with '$' left raw is another request.
        self.refused("SignatureDoesNotMatch", S3_PUT_OBJECT, S3_KEYS, target="/test$file.text2")

    def test_body_must_match_its_hash(self):
        self.refused("XAmzContentSHA256Mismatch", S3_PUT_OBJECT, S3_KEYS,
                     body=b"Welcome to Amazon S4.")

    def test_flipped_signature_digit(self):
        auth = dict(S3_GET_OBJECT["headers"])["Authorization"]
        flipped = auth[:-1] + ("0" if auth[-1] != "0" else "1")
        self.refused("SignatureDoesNotMatch", S3_GET_OBJECT, S3_KEYS,
                     headers=replace_header(S3_GET_OBJECT["headers"], "authorization", flipped))

    def test_scope_and_headers(self):
        self.refused("AuthorizationHeaderMalformed", S3_GET_OBJECT, S3_KEYS, region="eu-west-1")
        self.refused("AuthorizationHeaderMalformed", S3_GET_OBJECT, S3_KEYS, service="sqs")
        self.refused("InvalidAccessKeyId", S3_GET_OBJECT, SUITE_KEYS)
        self.refused("AuthorizationHeaderMalformed", S3_GET_OBJECT, S3_KEYS,
                     headers=replace_header(S3_GET_OBJECT["headers"], "x-amz-date",
                                            "20130525T000000Z"))
        no_date = [(n, v) for n, v in S3_GET_OBJECT["headers"] if n.lower() != "x-amz-date"]
        self.refused("AccessDenied", S3_GET_OBJECT, S3_KEYS, headers=no_date)
        extra = S3_GET_OBJECT["headers"] + [("x-amz-acl", "public-read")]
        self.refused("AccessDenied", S3_GET_OBJECT, S3_KEYS, headers=extra)
        no_auth = [(n, v) for n, v in S3_GET_OBJECT["headers"] if n.lower() != "authorization"]
        self.refused("AccessDenied", S3_GET_OBJECT, S3_KEYS, headers=no_auth)
        no_hash = [(n, v.replace("range;x-amz-content-sha256;", "range;"))
                   for n, v in S3_GET_OBJECT["headers"] if n.lower() != "x-amz-content-sha256"]
        self.refused("InvalidRequest", S3_GET_OBJECT, S3_KEYS, headers=no_hash)
        self.refused("AccessDenied", S3_GET_OBJECT, S3_KEYS, headers=no_hash[:2] + no_hash[3:])

    def test_session_tokens(self):
        # A temporary key: its requests must carry its token, and sign it.
        tokens = {"AKIAIOSFODNN7EXAMPLE": "the-session-token"}
        self.refused("InvalidAccessKeyId", S3_GET_OBJECT, S3_KEYS, tokens=tokens)
        wrong = S3_GET_OBJECT["headers"] + [("x-amz-security-token", "another-token")]
        self.refused("InvalidToken", S3_GET_OBJECT, S3_KEYS, tokens=tokens, headers=wrong)
        unsigned = S3_GET_OBJECT["headers"] + [("x-amz-security-token", "the-session-token")]
        self.refused("AccessDenied", S3_GET_OBJECT, S3_KEYS, tokens=tokens, headers=unsigned)
        # Without a token configured the published example passes as before.
        check(S3_GET_OBJECT, S3_KEYS, tokens={})

    def test_clock_skew(self):
        with self.assertRaises(p.Refusal) as caught:
            r = S3_GET_OBJECT
            p.verify(r["method"], r["target"], r["headers"], r["body"], S3_KEYS, "us-east-1",
                     "s3", datetime.datetime(2013, 5, 24, 1, 0, tzinfo=datetime.timezone.utc))
        self.assertEqual(caught.exception.code, "RequestTimeTooSkewed")


class Upstream(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen = []

    def log_message(self, *args):
        pass

    def do_PUT(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        Upstream.seen.append((self.command, self.path, body))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.send_header("ETag", '"up"')
        self.end_headers()
        self.wfile.write(b"ok")


def signed_put(key, secret, path, body, when):
    amz_date = when.strftime("%Y%m%dT%H%M%SZ")
    headers = [("Host", "127.0.0.1"), ("x-amz-date", amz_date),
               ("x-amz-content-sha256", hashlib.sha256(body).hexdigest())]
    signed = ["host", "x-amz-content-sha256", "x-amz-date"]
    canonical = p.canonical_request("PUT", path, "", headers, signed, headers[2][1], "s3")
    scope = f"{amz_date[:8]}/us-east-1/s3/aws4_request"
    sig = p.signature(secret, amz_date[:8], "us-east-1", "s3",
                      p.string_to_sign(amz_date, scope, canonical))
    headers.append(("Authorization", f"AWS4-HMAC-SHA256 Credential={key}/{scope}, "
                    f"SignedHeaders={';'.join(signed)}, Signature={sig}"))
    return headers


class ProxyEndToEnd(unittest.TestCase):
    def test_refused_requests_never_reach_upstream(self):
        upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
        threading.Thread(target=upstream.serve_forever, daemon=True).start()
        with tempfile.TemporaryDirectory() as tmp:
            port_file = os.path.join(tmp, "port")
            proxy = subprocess.Popen(
                [sys.executable, p.__file__, "--upstream", f"127.0.0.1:{upstream.server_port}",
                 "--access-key", "K", "--secret-key", "S", "--port-file", port_file,
                 "--lifetime", "60"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                for _ in range(100):
                    if os.path.exists(port_file):
                        break
                    time.sleep(0.05)
                with open(port_file) as f:
                    port = int(f.read())
                now = datetime.datetime.now(datetime.timezone.utc)

                def put(path, body, secret):
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                    headers = signed_put("K", secret, path, body, now)
                    conn.putrequest("PUT", path, skip_host=True)
                    for n, v in headers + [("Content-Length", str(len(body)))]:
                        conn.putheader(n, v)
                    conn.endheaders(body)
                    r = conn.getresponse()
                    data = r.read()
                    conn.close()
                    return r.status, data

                status, data = put("/b/wrong%2Bsecret.whl", b"x" * 10, "not-S")
                self.assertEqual(status, 403)
                self.assertIn(b"<Code>SignatureDoesNotMatch</Code>", data)
                self.assertEqual(Upstream.seen, [])
                status, data = put("/b/right%2Bsecret.whl", b"y" * 10, "S")
                self.assertEqual((status, data), (200, b"ok"))
                self.assertEqual(Upstream.seen, [("PUT", "/b/right%2Bsecret.whl", b"y" * 10)])
            finally:
                proxy.kill()
                log = proxy.communicate()[1].decode()
                upstream.shutdown()
                upstream.server_close()
            self.assertIn("refused SignatureDoesNotMatch PUT /b/wrong%2Bsecret.whl", log)
            self.assertIn("ok PUT /b/right%2Bsecret.whl", log)


if __name__ == "__main__":
    unittest.main(verbosity=2)
