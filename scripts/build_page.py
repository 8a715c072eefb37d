#!/usr/bin/env python3
"""Builds the page into dist/: what `trunk build --release` did, without
trunk, whose compile was most of a fresh machine's wait before serving (about
nine minutes of 2 cores, for a tool that runs four commands).

It reads the `<link data-trunk ...>` tags of index.html (trunk's markup, kept
so the file stays readable):

* `rel="rust"`: `cargo build --target wasm32-unknown-unknown --profile P
  --bin B --offline --locked` (P: `data-cargo-profile-release`), then
  `wasm-bindgen --target web --no-typescript`, then `wasm-opt -O<level>`
  with `data-wasm-opt-params`; the wasm and its JS are named after a digest
  of their content (`kafka-visualiser-<16 hex>`), preloaded with subresource
  integrity, and started by one inline module script;
* `rel="css"`: copied under a content-hashed name, linked with integrity;
* `rel="copy-file"` / `rel="copy-dir"`: copied beside the page.

Then scripts/post_build.py allows the inline loader in the page's
Content-Security-Policy by its hash and names the service worker's cache
after the build. The new dist/ replaces the old one only when every step
succeeded.

    scripts/build_page.py [--profile P] [--dist DIR] [--index FILE]

Needs cargo, wasm-bindgen and wasm-opt on PATH (scripts/setup.sh installs
them and fetches every crate, hence --offline).
"""
import argparse, base64, hashlib, html.parser, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg):
    sys.exit("build_page: " + msg)


class Links(html.parser.HTMLParser):
    """The `<link data-trunk ...>` tags: (their text, their attributes)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.text, self.found = text, []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "link" and any(k == "data-trunk" for k, _ in attrs):
            line, col = self.getpos()
            start = sum(len(l) for l in self.text.splitlines(True)[: line - 1]) + col
            end = self.text.index(">", start) + 1
            self.found.append((self.text[start:end], dict(attrs)))


def run(cmd, **kw):
    print("build_page: " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, cwd=ROOT, **kw)
    if r.returncode != 0:
        die("`%s` failed (exit code %d)" % (cmd[0], r.returncode))


def digest(*paths):
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def integrity(path):
    with open(path, "rb") as f:
        return "sha384-" + base64.b64encode(hashlib.sha384(f.read()).digest()).decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", help="cargo profile (default: index.html's data-cargo-profile-release)")
    ap.add_argument("--dist", default=os.path.join(ROOT, "dist"), help="where the page goes (default: dist/)")
    ap.add_argument("--index", default=os.path.join(ROOT, "index.html"), help="the page's template")
    a = ap.parse_args()

    page = open(a.index, encoding="utf-8").read()
    links = Links(page).found
    rust = [at for _, at in links if at.get("rel") == "rust"]
    if len(rust) != 1:
        die("%s: expected one <link data-trunk rel=\"rust\">, found %d" % (a.index, len(rust)))
    rust = rust[0]
    bin_name = rust.get("data-bin") or die("the rust link needs data-bin")
    profile = a.profile or rust.get("data-cargo-profile-release", "release")
    level = rust.get("data-wasm-opt", "z")
    params = rust.get("data-wasm-opt-params", "").split()

    staging = tempfile.mkdtemp(prefix="dist-", dir=os.path.dirname(os.path.abspath(a.dist)))
    work = tempfile.mkdtemp(prefix="build-page-")
    try:
        # 1. The wasm, its bindings, then wasm-opt.
        run(["cargo", "build", "--target", "wasm32-unknown-unknown", "--profile", profile,
             "--bin", bin_name, "--offline", "--locked"])
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        wasm = os.path.join(target, "wasm32-unknown-unknown", profile, bin_name + ".wasm")
        run(["wasm-bindgen", "--target=web", "--no-typescript", "--out-dir=" + work,
             "--out-name=" + bin_name, wasm])
        bg, js = os.path.join(work, bin_name + "_bg.wasm"), os.path.join(work, bin_name + ".js")
        if level != "0":
            opt = os.path.join(work, "opt.wasm")
            run(["wasm-opt", "--output=" + opt, "-O" + level, bg] + params)
            os.replace(opt, bg)
        base = "%s-%s" % (bin_name, digest(bg, js))
        shutil.copyfile(js, os.path.join(staging, base + ".js"))
        shutil.copyfile(bg, os.path.join(staging, base + "_bg.wasm"))
        loader = (
            '\n<script type="module">\n'
            "import init, * as bindings from './%s.js';\n"
            "const wasm = await init({ module_or_path: './%s_bg.wasm' });\n"
            "window.wasmBindings = bindings;\n"
            'dispatchEvent(new CustomEvent("ApplicationStarted", {detail: {wasm}}));\n'
            "</script>" % (base, base)
        )
        preload = (
            '<link rel="modulepreload" href="./%s.js" crossorigin="anonymous" integrity="%s">'
            '<link rel="preload" href="./%s_bg.wasm" crossorigin="anonymous" integrity="%s" as="fetch" type="application/wasm">'
            % (base, integrity(os.path.join(staging, base + ".js")),
               base, integrity(os.path.join(staging, base + "_bg.wasm")))
        )

        # 2. The other links, in the page's order.
        for tag, at in links:
            rel, href = at.get("rel"), at.get("href")
            if rel == "rust":
                new = loader
            elif rel == "css":
                src = os.path.join(ROOT, href)
                stem = os.path.splitext(os.path.basename(href))[0]
                name = "%s-%s.css" % (stem, digest(src))
                shutil.copyfile(src, os.path.join(staging, name))
                new = '<link rel="stylesheet" href="./%s" integrity="%s"/>' % (
                    name, integrity(os.path.join(staging, name)))
            elif rel == "copy-file":
                shutil.copyfile(os.path.join(ROOT, href), os.path.join(staging, os.path.basename(href)))
                new = ""
            elif rel == "copy-dir":
                shutil.copytree(os.path.join(ROOT, href), os.path.join(staging, os.path.basename(href.rstrip("/"))))
                new = ""
            else:
                die("%s: a data-trunk link with rel=%r is not something this script builds" % (a.index, rel))
            page = page.replace(tag, new, 1)
        page = page.replace("</head>", preload + "</head>", 1)
        with open(os.path.join(staging, "index.html"), "w", encoding="utf-8") as f:
            f.write(page)

        # 3. The CSP hash and the service worker's cache name.
        run([sys.executable, os.path.join(ROOT, "scripts", "post_build.py"), staging])

        # 4. The new page replaces the old one.
        if os.path.exists(a.dist):
            shutil.rmtree(a.dist)
        os.replace(staging, a.dist)
        staging = None
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if staging:
            shutil.rmtree(staging, ignore_errors=True)
    total = 0
    for name in sorted(os.listdir(a.dist)):
        if name.endswith((".wasm", ".js")):
            total += os.path.getsize(os.path.join(a.dist, name))
    print("build_page: the page is in %s (wasm + JS %d bytes before compression)" % (a.dist, total))


if __name__ == "__main__":
    main()
