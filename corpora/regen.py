#!/usr/bin/env python3
"""Rebuild the generated PTX of the corpus from the sources under ``corpora/src/``.

Invariant: every file under ``corpora/nvcc/``, ``corpora/large/``, ``corpora/triton/`` and
``corpora/numba/`` is exactly what this script produces from the committed sources with the pinned tool
versions (``--check`` proves it byte for byte), and every one of them is accepted by ``ptxas`` for the
target it names (unless ``--no-ptxas``).

Collections (see ``corpora/README.md``):

* ``nvcc``:   ``src/cuda/*.cu`` -> ``nvcc/sm_XX/<stem>.ptx`` and ``nvcc/sm_XX/<stem>.<variant>.ptx``
* ``large``:  ``src/cuda`` files with ``// corpus-output: large`` -> ``large/<stem>.sm_XX.ptx``
* ``triton``: ``src/triton/*.py`` -> ``triton/sm_XX/<kernel>.ptx`` (run with the throwaway venv's Python)
* ``numba``:  ``src/numba/*.py``  -> ``numba/sm_XX/<kernel>.ptx``  (same venv; NVVM from the CUDA toolkit)

A CUDA source steers its own build with header comments:

* ``// corpus-min-arch: 80``            skip targets below sm_80
* ``// corpus-archs: 80``               build only these targets (space separated)
* ``// corpus-flags: -rdc=true``        extra nvcc flags for every build of this file
* ``// corpus-variants: debug=-G ; fast_math=-use_fast_math``  extra builds with extra nvcc flags
* ``// corpus-output: large``           write to ``large/`` instead of ``nvcc/``

The sources are copied to the fixed folder ``/tmp/ptx2gcn-corpus/src`` and compiled from there, because
the output depends on the source's absolute path: nvcc derives the hash in internal-linkage names
(``_INTERNAL_64650263_21_cooperative_groups_cu_...``) from it, and ``-G`` and Triton embed it in DWARF
strings. The ``.file`` directives therefore name ``/tmp/ptx2gcn-corpus/src/...`` whatever the checkout's
location. The throwaway venv's ``.../site-packages/`` prefix (Triton's ``.file`` lines) is written as
``site-packages/``. A lock file keeps two runs from sharing the folder.

Usage: ``python3 corpora/regen.py [--check] [--only nvcc,large,triton,numba] [--jobs N]``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

CORPORA = Path(__file__).resolve().parent
SRC = CORPORA / "src"
STAGE = Path("/tmp/ptx2gcn-corpus")
STAGED_SRC = STAGE / "src"

# The toolchain the committed files were built with. Another version produces other text, so a
# mismatch is an error unless --any-version is given (then --check will report the differences).
EXPECTED_NVCC = "V13.0.88"
EXPECTED_TRITON = "3.9.0"
EXPECTED_NUMBA_CUDA = "0.30.4"

# nvcc 13.0 rejects sm_52 ("Unsupported gpu architecture 'sm_52'") and sm_70 (same message): CUDA 13
# removed Maxwell, Pascal and Volta. sm_75 is its oldest target.
NVCC_ARCHS = (75, 80, 90)
NVCC_FLAGS = ("-std=c++17", "-ptx")
TRITON_ARCHS = (80, 90)
NUMBA_ARCHS = (75, 80, 90)

COLLECTIONS = ("nvcc", "large", "triton", "numba")


@dataclasses.dataclass(frozen=True, slots=True)
class Job:
    """One output file and the command that writes it (to ``output``, inside the staging tree)."""

    output: Path
    """Path relative to ``corpora/``."""
    command: tuple[str, ...]
    arch: int
    """Target for the ptxas check; 0 for jobs that write several files (checked one by one later)."""
    env: tuple[tuple[str, str], ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class CudaSource:
    path: Path
    archs: tuple[int, ...]
    flags: tuple[str, ...]
    variants: tuple[tuple[str, tuple[str, ...]], ...]
    large: bool


def parse_cuda_header(path: Path) -> CudaSource:
    """Read the ``// corpus-*:`` header lines of one CUDA source."""
    text = path.read_text()
    fields = dict(re.findall(r"^// corpus-([a-z-]+):\s*(.*?)\s*$", text, re.MULTILINE))
    unknown = set(fields) - {"min-arch", "archs", "flags", "variants", "output"}
    if unknown:
        raise SystemExit(f"{path}: unknown corpus header field(s): {', '.join(sorted(unknown))}")
    archs = tuple(int(a) for a in fields["archs"].split()) if "archs" in fields else NVCC_ARCHS
    min_arch = int(fields.get("min-arch", "0"))
    variants: list[tuple[str, tuple[str, ...]]] = []
    for item in filter(None, (v.strip() for v in fields.get("variants", "").split(";"))):
        name, _, flags = item.partition("=")
        if not re.fullmatch(r"[a-z0-9_]+", name.strip()) or not flags.strip():
            raise SystemExit(f"{path}: bad corpus-variants entry {item!r} (want name=flags)")
        variants.append((name.strip(), tuple(flags.split())))
    output = fields.get("output", "nvcc")
    if output not in ("nvcc", "large"):
        raise SystemExit(f"{path}: corpus-output must be nvcc or large, not {output!r}")
    flags = tuple(fields.get("flags", "").split())
    return CudaSource(path, tuple(a for a in archs if a >= min_arch), flags, tuple(variants), output == "large")


def nvcc_jobs(nvcc: str, collection: str, src_dir: Path = STAGED_SRC) -> list[Job]:
    """The nvcc runs for ``collection`` (``nvcc`` or ``large``), planned from the sources in ``src_dir``."""
    jobs: list[Job] = []
    for src in sorted((src_dir / "cuda").glob("*.cu")):
        info = parse_cuda_header(src)
        if info.large != (collection == "large"):
            continue
        builds: list[tuple[str, tuple[str, ...]]] = [("", ())]
        builds += [(f".{name}", flags) for name, flags in info.variants]
        for arch in info.archs:
            for suffix, flags in builds:
                if info.large:
                    out = Path("large") / f"{src.stem}{suffix}.sm_{arch}.ptx"
                else:
                    out = Path("nvcc") / f"sm_{arch}" / f"{src.stem}{suffix}.ptx"
                command = (nvcc, *NVCC_FLAGS, f"-arch=sm_{arch}", *info.flags, *flags, str(src), "-o", "{out}")
                jobs.append(Job(out, command, arch))
    return jobs


def python_jobs(python: str, collection: str, archs: Iterable[int]) -> list[Job]:
    """One job per generator script: it writes ``<collection>/sm_XX/*.ptx`` into ``{outdir}``."""
    env = (
        ("CUDA_HOME", "/usr/local/cuda"),
        ("TRITON_CACHE_DIR", "{tmp}/triton-cache"),
        ("TRITON_DEFAULT_FP_FUSION", "1"),  # Triton 3.9's default, pinned (3.10 changes it)
        ("PYTHONHASHSEED", "0"),
    )
    arch_list = ",".join(str(a) for a in archs)
    return [
        Job(Path(collection) / src.stem, (python, str(src), "--out", "{outdir}", "--archs", arch_list), 0, env)
        for src in sorted((STAGED_SRC / collection).glob("*.py"))
        if not src.name.startswith("_")
    ]


def relativise(text: str) -> str:
    """Write the venv-dependent ``"<anything>/site-packages/`` prefix of ``.file`` paths as ``"site-packages/``."""
    return re.sub(r'"[^"\n]*/site-packages/', '"site-packages/', text)


def run_job(job: Job, stage: Path, tmp: Path) -> list[Path]:
    """Run one job; return the files it put into ``stage``, relative to ``stage``.

    A single-file job writes straight into ``stage``; a generator script writes into a folder of its own
    first, so that concurrent scripts cannot be credited with each other's files.
    """
    if job.arch:
        outdir = (stage / job.output).parent
    else:
        outdir = tmp / "jobs" / job.output
    outdir.mkdir(parents=True, exist_ok=True)
    out = stage / job.output
    subst = {"{out}": str(out), "{outdir}": str(outdir), "{tmp}": str(tmp)}
    command = [subst.get(part, part) for part in job.command]
    env = dict(os.environ)
    for key, value in job.env:
        env[key] = value.replace("{tmp}", str(tmp))
    result = subprocess.run(command, env=env, capture_output=True, text=True, cwd=STAGE, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}{result.stdout}")
    if job.arch:
        produced = [out]
    else:
        produced = []
        for path in sorted(outdir.rglob("*.ptx")):
            target = stage / job.output.parent / path.relative_to(outdir)
            if target.exists():
                raise RuntimeError(f"{target.relative_to(stage)} is written by two generator scripts")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(path, target)
            produced.append(target)
    if not produced:
        raise RuntimeError(f"{' '.join(command)} wrote no PTX")
    for path in produced:
        path.write_text(relativise(path.read_text()))
    return [p.relative_to(stage) for p in produced]


def ptxas_check(ptxas: str, path: Path) -> str | None:
    """Assemble ``path`` for the target it declares; return ptxas's complaint, or None when accepted."""
    text = path.read_text(errors="replace")
    target = re.search(r"^\.target\s+(sm_\w+)", text, re.MULTILINE)
    if target is None:
        return f"{path}: no .target directive"
    command = [ptxas, f"-arch={target.group(1)}", str(path), "-o", os.devnull]
    if re.search(r"^\.target\s+sm_\w+\s*,\s*debug", text, re.MULTILINE):
        command.insert(1, "-g")  # a `.target ..., debug` module must be assembled with debug info
    if re.search(r"^\.extern\s+\.func", text, re.MULTILINE):
        command.insert(1, "-c")  # calls a function defined elsewhere: check it as relocatable code
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    return None if result.returncode == 0 else f"{path}: ptxas: {result.stderr.strip()}"


def ptxas_chooser(args: argparse.Namespace, wanted: set[str]) -> Callable[[Path], str]:
    """The ptxas that judges each output: the toolkit's, except for Triton's PTX.

    Triton 3.9 sets ``.version`` from the ptxas it bundles and uses (CUDA 12.9 below sm_90, so PTX 8.8;
    CUDA 13.4 ``ptxas-blackwell`` from sm_90 on, so PTX 9.4, which CUDA 13.0's ptxas refuses), so its
    files are assembled with that same bundled ptxas.
    """
    toolkit = str(Path(args.nvcc).with_name("ptxas"))
    triton_bin = Path()
    if "triton" in wanted:
        found = subprocess.run([args.python, "-c", "import os, triton; print(os.path.dirname(triton.__file__))"],
                               capture_output=True, text=True, check=True)
        triton_bin = Path(found.stdout.strip()) / "backends" / "nvidia" / "bin"

    def choose(output: Path) -> str:
        if output.parts[0] != "triton":
            return toolkit
        return str(triton_bin / ("ptxas" if output.parts[1] < "sm_90" else "ptxas-blackwell"))

    return choose


def tool_version(command: list[str], pattern: str) -> str:
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return "absent"
    found = re.search(pattern, result.stdout + result.stderr)
    return found.group(1) if found else "unknown"


def check_versions(args: argparse.Namespace, wanted: set[str]) -> None:
    checks: list[tuple[str, str, Callable[[], str]]] = []
    if wanted & {"nvcc", "large"}:
        checks.append(("nvcc", EXPECTED_NVCC, lambda: tool_version([args.nvcc, "--version"], r"(V[\d.]+)")))
    if "triton" in wanted:
        checks.append(("triton", EXPECTED_TRITON, lambda: tool_version(
            [args.python, "-c", "import triton; print(triton.__version__)"], r"^([\d.]+)")))
    if "numba" in wanted:
        checks.append(("numba-cuda", EXPECTED_NUMBA_CUDA, lambda: tool_version(
            [args.python, "-c", "import importlib.metadata as m; print(m.version('numba-cuda'))"], r"^([\d.]+)")))
    for name, expected, get in checks:
        found = get()
        if found != expected:
            message = f"{name} {found} found, the corpus was built with {expected}"
            if not args.any_version:
                raise SystemExit(f"regen: {message} (pass --any-version to build anyway)")
            print(f"regen: warning: {message}", file=sys.stderr)


def build(args: argparse.Namespace, wanted: set[str], stage: Path, tmp: Path) -> list[Path]:  # noqa: C901
    jobs: list[Job] = []
    for collection in ("nvcc", "large"):
        if collection in wanted:
            jobs += nvcc_jobs(args.nvcc, collection)
    if "triton" in wanted:
        jobs += python_jobs(args.python, "triton", TRITON_ARCHS)
    if "numba" in wanted:
        jobs += python_jobs(args.python, "numba", NUMBA_ARCHS)
    # Longest first: the large file alone takes minutes.
    jobs.sort(key=lambda j: (j.output.parts[0] != "large", str(j.output)))
    written: list[Path] = []
    errors: list[str] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_job, job, stage, tmp): job for job in jobs}
        for future in concurrent.futures.as_completed(futures):
            try:
                files = future.result()
            except RuntimeError as error:
                errors.append(str(error))
                continue
            written += files
            for f in files:
                print(f"  wrote {f}", file=sys.stderr)
        if not args.no_ptxas:
            choose = ptxas_chooser(args, wanted)
            for problem in pool.map(lambda p: ptxas_check(choose(p), stage / p), written):
                if problem:
                    errors.append(problem)
    if errors:
        raise SystemExit("regen: failed:\n" + "\n".join(errors))
    return sorted(written)


def generated_files(root: Path, wanted: set[str]) -> set[Path]:
    return {p.relative_to(root) for c in wanted for p in (root / c).rglob("*.ptx") if p.is_file()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="rebuild into a temporary folder and compare")
    parser.add_argument("--only", default=",".join(COLLECTIONS), help="comma-separated collections")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    parser.add_argument("--python", default="/work/corpus-venv/bin/python",
                        help="Python with triton and numba-cuda installed (a throwaway venv)")
    parser.add_argument("--no-ptxas", action="store_true", help="skip assembling every output with ptxas")
    parser.add_argument("--any-version", action="store_true", help="build with other tool versions")
    args = parser.parse_args(argv)
    wanted = set(filter(None, args.only.split(",")))
    if not wanted <= set(COLLECTIONS):
        parser.error(f"--only takes {', '.join(COLLECTIONS)}")
    check_versions(args, wanted)
    STAGE.mkdir(parents=True, exist_ok=True)
    with (
        open(STAGE.with_suffix(".lock"), "w") as lock,
        tempfile.TemporaryDirectory(prefix="ptx2gcn-corpus-") as tmp_name,
    ):
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(STAGED_SRC, ignore_errors=True)
        shutil.copytree(SRC, STAGED_SRC, ignore=shutil.ignore_patterns("__pycache__"))
        tmp = Path(tmp_name)
        stage = tmp / "out"
        written = build(args, wanted, stage, tmp)
        committed = generated_files(CORPORA, wanted)
        if args.check:
            return compare(stage, written, committed)
        for rel in written:
            (CORPORA / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(stage / rel, CORPORA / rel)
        stale = sorted(committed - set(written))
        for rel in stale:
            (CORPORA / rel).unlink()
            print(f"  removed stale {rel}", file=sys.stderr)
    print(f"regen: {len(written)} files written", file=sys.stderr)
    return 0


def compare(stage: Path, written: list[Path], committed: set[Path]) -> int:
    problems = [f"missing from the corpus: {p}" for p in written if p not in committed]
    problems += [f"differs: {p}" for p in written if p in committed and
                 (stage / p).read_bytes() != (CORPORA / p).read_bytes()]
    problems += [f"not produced by the sources (stale): {p}" for p in sorted(committed - set(written))]
    for line in problems:
        print(line)
    print(f"regen --check: {len(written)} files rebuilt, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
