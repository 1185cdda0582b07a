#!/usr/bin/env python3
"""readme_examples.py — run the examples of README.md, as they are written.

The examples are the README's fenced code blocks.  What happens to each is
decided by its language and by a marker, an HTML comment on the last
non-blank line before its opening fence (invisible on the rendered page):

  ```sh / ```bash   run with bash -e -o pipefail, in order, in one working
                    directory (so a block may use what an earlier one wrote,
                    as a reader going down the page would)
  <!-- readme-test: file NAME -->
                    the block is saved as WORKDIR/NAME instead (a C program
                    the next shell block compiles, a command file)
  <!-- readme-test: skip (REASON) -->
                    the block is not run; REASON is required (board-only
                    commands, `make test` itself, ...)
  ``` (no language) text: diagrams, layouts; never run

A ```c block must carry a file or skip marker (a C fragment nobody
compiles is what this test exists to prevent); any other language is an
error, as is a marker before no block or a skip without a reason.

The working directory holds a link to each top-level entry of the
repository, so the commands run as from its root (build/bin/sgpu,
tools/..., make) while what they write lands in the working directory.
HOME is WORKDIR/home, so `$HOME/...` in an example stays inside the test.
Each shell block runs in a session of its own, killed when the block ends
(a server an example starts with & does not outlive it), with a time limit.

  readme_examples.py README ROOT WORKDIR [--stop] [--timeout S]
      run them; print one line per block, the output of a failed block;
      leave block N's output in WORKDIR/.readme/N.out and its source line
      in WORKDIR/.readme/N.line; exit 1 when a block failed or a rule is
      broken.  --stop: stop at the first failed block.
  readme_examples.py --self-test ROOT
      show that the rules catch what they should: a broken block fails, a
      skipped broken block does not, an unmarked C block and a skip without
      a reason are refused, and the repository's README with its first
      runnable block broken fails.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(\s*)```([A-Za-z0-9_+-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*readme-test:\s*(.*?)\s*-->\s*$")
SHELLS = ("sh", "bash")


class Block:
    def __init__(self, line, lang, text, action, arg):
        self.line, self.lang, self.text, self.action, self.arg = line, lang, text, action, arg


def parse(path):
    """The blocks of a Markdown file and the rule errors found."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, errors = [], []
    pending = None  # (line, action, arg) of a marker waiting for its block
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if m:
            if pending:
                errors.append(f"{path}:{pending[0]}: readme-test marker before no code block")
            body = m.group(1)
            s = re.match(r"^skip\s*\((.*)\)$", body)
            f = re.match(r"^file\s+([A-Za-z0-9_.-]+)$", body)
            if s and s.group(1).strip():
                pending = (i + 1, "skip", s.group(1).strip())
            elif s or body == "skip":
                errors.append(f"{path}:{i + 1}: readme-test skip needs a reason: skip (REASON)")
                pending = (i + 1, "skip", "")
            elif f:
                pending = (i + 1, "file", f.group(1))
            else:
                errors.append(f"{path}:{i + 1}: unknown readme-test marker '{body}' "
                              "(skip (REASON) or file NAME)")
                pending = None
            i += 1
            continue
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip() and pending:
                errors.append(f"{path}:{pending[0]}: readme-test marker before no code block")
                pending = None
            i += 1
            continue
        indent, lang, start = m.group(1), m.group(2).lower(), i + 1
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            ln = lines[i]
            body.append(ln[len(indent):] if ln.startswith(indent) else ln.lstrip())
            i += 1
        if i == len(lines):
            errors.append(f"{path}:{start}: code block never closed")
        i += 1
        action, arg = (pending[1], pending[2]) if pending else (None, None)
        pending = None
        text = "\n".join(body) + "\n"
        if action is None:
            if lang in SHELLS:
                action = "run"
            elif lang == "":
                action = "text"
            elif lang == "c":
                errors.append(f"{path}:{start}: a c block needs <!-- readme-test: file NAME --> "
                              "(saved for a later shell block to compile) or a skip with a reason")
                action = "error"
            else:
                errors.append(f"{path}:{start}: no rule for a '{lang}' block "
                              "(sh, c with a marker, or plain text)")
                action = "error"
        blocks.append(Block(start, lang, text, action, arg))
    if pending:
        errors.append(f"{path}:{pending[0]}: readme-test marker before no code block")
    return blocks, errors


def link_root(root, work):
    for name in os.listdir(root):
        if name.startswith(".") or os.path.exists(os.path.join(work, name)):
            continue
        os.symlink(os.path.join(root, name), os.path.join(work, name))


def running(pid):
    """pid names a process that is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def group_alive(pgid):
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    st = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if st[0] != "Z" and int(st[2]) == pgid:
                return True
    return False


def end_session(pgid):
    """SIGTERM to the block's process group; SIGKILL to what is left after 5 s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        for _ in range(50):
            if not group_alive(pgid):
                return
            time.sleep(0.1)


def first_command(text):
    for ln in text.split("\n"):
        if ln.strip() and not ln.strip().startswith("#"):
            return ln.strip()[:70]
    return ""


def run(readme, root, work, stop=False, timeout=600, quiet=False):
    blocks, errors = parse(readme)
    for e in errors:
        print("not ok - " + e)
    os.makedirs(work, exist_ok=True)
    home = os.path.join(work, "home")
    os.makedirs(home, exist_ok=True)
    meta = os.path.join(work, ".readme")
    os.makedirs(meta, exist_ok=True)
    link_root(root, work)
    env = dict(os.environ, HOME=home)
    # as a reader's shell: no library path, no make of ours around it
    for v in ("LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "MAKEFLAGS", "MAKELEVEL", "MFLAGS",
              "MAKEOVERRIDES"):
        env.pop(v, None)
    failed = len(errors)
    ran = 0
    for n, b in enumerate(blocks, 1):
        where = f"README block {n} (line {b.line})"
        if b.action == "skip":
            print(f"ok - {where}: skipped ({b.arg})")
            continue
        if b.action == "file":
            with open(os.path.join(work, b.arg), "w") as f:
                f.write(b.text)
            print(f"ok - {where}: saved as {b.arg}")
            continue
        if b.action != "run":
            continue
        script = os.path.join(meta, f"{n}.sh")
        out = os.path.join(meta, f"{n}.out")
        with open(script, "w") as f:
            f.write(b.text)
        with open(os.path.join(meta, f"{n}.line"), "w") as f:
            f.write(f"{b.line}\n")
        ran += 1
        with open(out, "w") as o:
            p = subprocess.Popen(["bash", "-e", "-o", "pipefail", script], cwd=work, env=env,
                                 stdin=subprocess.DEVNULL, stdout=o, stderr=subprocess.STDOUT,
                                 start_new_session=True)
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                rc = "timeout"
            end_session(p.pid)  # whatever the block left running
            if rc == "timeout":
                p.wait()
        if rc == 0:
            print(f"ok - {where}: {first_command(b.text)}")
            continue
        failed += 1
        print(f"not ok - {where} failed ({'time limit' if rc == 'timeout' else f'exit {rc}'}): "
              f"{first_command(b.text)}")
        if not quiet:
            tail = open(out, errors="replace").read().split("\n")[-30:]
            for ln in tail:
                print("   | " + ln)
        if stop:
            break
    print(f"{ran} blocks run, {failed} problems")
    return failed == 0


def self_test(root):
    ok = True

    def expect(name, text, want_pass, readme_dir=None):
        nonlocal ok
        with tempfile.TemporaryDirectory() as t:
            path = os.path.join(t, "README.md")
            with open(path, "w") as f:
                f.write(text)
            work = os.path.join(t, "work")
            got = run(path, readme_dir or t, work, stop=True, timeout=600, quiet=True)
        if got == want_pass:
            print(f"self-test ok - {name}: {'passes' if got else 'fails'}")
        else:
            print(f"self-test FAILED - {name}: {'passed' if got else 'failed'}, "
                  f"expected it to {'pass' if want_pass else 'fail'}")
            ok = False

    good = ("# t\n\n```sh\necho 1 > one.txt\n```\n\n<!-- readme-test: file prog.c -->\n"
            "```c\nint main(void) { return 0; }\n```\n\n"
            "<!-- readme-test: skip (board only) -->\n```sh\nfalse\n```\n\n"
            "```\n diagram\n```\n\n"
            "1. a list item\n   ```sh\n   test -s one.txt && test -s prog.c\n   ```\n")
    expect("a good README", good, True)
    expect("a block that fails", good.replace("echo 1 > one.txt", "echo 1 > one.txt\nfalse"), False)
    expect("a failing command inside a pipeline",
           good.replace("echo 1 > one.txt", "echo 1 > one.txt\nfalse | cat"), False)
    expect("an indented block that fails", good.replace("test -s one.txt", "test -s two.txt"), False)
    expect("an unmarked c block", good.replace("<!-- readme-test: file prog.c -->\n", ""), False)
    expect("a skip without a reason", good.replace("skip (board only)", "skip"), False)
    expect("a marker before no block", good + "\n<!-- readme-test: skip (nothing) -->\ntext\n", False)
    expect("an unknown language", good + "\n```python\nprint(1)\n```\n", False)
    # a server an example starts in the background ends with its block
    with tempfile.TemporaryDirectory() as t:
        path = os.path.join(t, "README.md")
        with open(path, "w") as f:
            f.write("```sh\nsleep 300 &\necho $! > bg.pid\n```\n")
        got = run(path, t, os.path.join(t, "work"), quiet=True)
        alive = running(int(open(os.path.join(t, "work", "bg.pid")).read()))
        if got and not alive:
            print("self-test ok - a background process an example starts is stopped with its block")
        else:
            print(f"self-test FAILED - background process: block {'passed' if got else 'failed'}, "
                  f"process {'still running' if alive else 'gone'}")
            ok = False

    # the repository's own README, its first runnable block broken
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    blocks, errors = parse(os.path.join(root, "README.md"))
    if errors:
        print("self-test FAILED - the README breaks the rules: " + "; ".join(errors))
        return False
    first = next((b for b in blocks if b.action == "run"), None)
    if not first:
        print("self-test FAILED - the README has no runnable block")
        return False
    lines = readme.split("\n")
    # the block's first line, with a command that fails inserted before it
    k = first.line  # 0-based index of the block's first line
    indent = re.match(r"^\s*", lines[k]).group(0)
    lines.insert(k, indent + "build/bin/sgpu no-such-command")
    expect("the README with its first runnable block broken", "\n".join(lines), False, root)
    return ok


def main(argv):
    if len(argv) >= 2 and argv[1] == "--self-test":
        return 0 if self_test(argv[2] if len(argv) > 2 else ".") else 1
    import argparse
    ap = argparse.ArgumentParser(description="run the examples of README.md")
    ap.add_argument("readme")
    ap.add_argument("root")
    ap.add_argument("workdir")
    ap.add_argument("--stop", action="store_true")
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args(argv[1:])
    return 0 if run(a.readme, a.root, a.workdir, stop=a.stop, timeout=a.timeout) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
