#!/usr/bin/env python3
"""The last step of scripts/build_page.py, on the staged files:

1. The page's Content-Security-Policy allows the one inline script the build
   writes (the wasm loader) by its SHA-256, instead of 'unsafe-inline'.
2. The service worker's cache is named after this build (a digest of
   index.html, which names every hashed file), so a new deploy installs a new
   worker, whose `activate` deletes the previous build's cache: hashed files
   do not pile up across deploys.
"""
import base64, hashlib, os, re, sys

staging = sys.argv[1] if len(sys.argv) > 1 else "dist"
index = os.path.join(staging, "index.html")
html = open(index, encoding="utf-8").read()

inline = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, flags=re.S)
hashes = ["'sha256-%s'" % base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() for s in inline]
csp = re.search(r'(<meta http-equiv="Content-Security-Policy" content=")([^"]*)(")', html)
if not csp:
    sys.exit("post_build: no Content-Security-Policy meta in " + index)

def script_src(m):
    parts = [p for p in m.group(1).split() if p != "'unsafe-inline'" and not p.startswith("'sha256-")]
    return "script-src " + " ".join(parts + hashes)

policy = re.sub(r"script-src ([^;]*)", script_src, csp.group(2), count=1)
html = html[:csp.start(2)] + policy + html[csp.end(2):]
open(index, "w", encoding="utf-8").write(html)

sw = os.path.join(staging, "sw.js")
build = hashlib.sha256(html.encode("utf-8")).hexdigest()[:12]
text = open(sw, encoding="utf-8").read()
text, n = re.subn(r"const CACHE = '[^']*';", "const CACHE = 'kafka-visualiser-%s';" % build, text, count=1)
if n != 1:
    sys.exit("post_build: no `const CACHE = '…';` line in " + sw)
open(sw, "w", encoding="utf-8").write(text)
print("post_build: %d inline script(s) allowed by hash; service worker cache kafka-visualiser-%s" % (len(hashes), build))
