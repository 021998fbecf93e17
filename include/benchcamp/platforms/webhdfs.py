"""Shell lines that talk to HDFS through the NameNode's HTTP API (WebHDFS) with `curl`.

A `hadoop fs` call starts a JVM (1.5-2 s on the lab); these start none. They are used where an
environment names its `webhdfs_url`; the target's own `BENCHCAMP_WEBHDFS_URL` (the lab's sshd
sets it) wins over it. Every call checks its HTTP status, so a NameNode that cannot be reached
or refuses fails the step with the path and the status instead of passing for done.
"""

from __future__ import annotations

import shlex
import urllib.parse

from benchcamp.core.steps import Shell

_CURL = "curl -sS --connect-timeout 10 --max-time 300"
_USER = "user.name=$(id -un)"


def _base_line(base_url: str) -> str:
    """`$base`: the NameNode's HTTP address (the target's BENCHCAMP_WEBHDFS_URL first)."""
    return f'base=${{BENCHCAMP_WEBHDFS_URL:-}}; [ -n "$base" ] || base={shlex.quote(base_url)}'


def _url_lines(base_url: str, path: str) -> list[str]:
    """`$url`: the WebHDFS address of `path` (absolute, on the data file system)."""
    return [
        _base_line(base_url),
        f'url="${{base%/}}"/webhdfs/v1{shlex.quote(urllib.parse.quote(path, safe="/"))}',
    ]


# The NameNode's NameNodeInfo bean, read from its JMX servlet on the same HTTP address: whether
# HDFS is in safe mode ("Safemode" is "" when not) and the bytes it has left for data ("Free",
# what `hadoop fs -df` prints as Available), without the two JVMs `dfsadmin` and `fs -df` start.
_NAMENODE_INFO = "Hadoop:service=NameNode,name=NameNodeInfo"
SAFE_MODE_OFF = 'grep -Eq \'"Safemode" *: *""\' <<<"$info"'
FREE_BYTES = 'sed -n \'s/.*"Free" *: *\\([0-9]*\\).*/\\1/p\' <<<"$info" | head -n 1'


def namenode_info_lines(base_url: str) -> list[str]:
    """Set `$info` to the NameNode's NameNodeInfo bean (JSON; empty when nothing answered):
    test it with `SAFE_MODE_OFF`, read `FREE_BYTES` from it."""
    return [
        _base_line(base_url),
        f'info=$({_CURL} "${{base%/}}/jmx?qry={_NAMENODE_INFO}" 2>/dev/null || true)',
    ]


def mkdir_lines(base_url: str, path: str, what: str) -> list[str]:
    """Create `path` and its parents (as `hadoop fs -mkdir -p`; one that exists is fine)."""
    return [
        *_url_lines(base_url, path),
        _status(f'-X PUT "$url?op=MKDIRS&{_USER}"'),
        _expect("200", f'"{what}: WebHDFS mkdir of "{shlex.quote(path)}" answered HTTP $code"'),
    ]


def _status(arguments: str) -> str:
    """`code=<HTTP status>` of one curl call; 000 when nothing answered (even under `set -e`)."""
    return f'code=$({_CURL} -o /dev/null -w "%{{http_code}}" {arguments} || true)'


def _expect(code: str, failure: str) -> str:
    return f'if [ "$code" != {code} ]; then echo {failure} >&2; exit 1; fi'


def delete_lines(base_url: str, path: str, verify: bool, what: str) -> list[str]:
    """Delete `path` recursively, and with `verify` check it is gone."""
    quoted = shlex.quote(path)
    lines = [
        *_url_lines(base_url, path),
        _status(f'-X DELETE "$url?op=DELETE&recursive=true&{_USER}"'),
        _expect("200", f'"{what}: WebHDFS delete of "{quoted}" answered HTTP $code"'),
    ]
    if verify:
        lines += [
            _status(f'"$url?op=GETFILESTATUS&{_USER}"'),
            _expect("404", f'"{what}: data still present (HTTP $code): "{quoted}'),
        ]
    return lines


def summary_lines(base_url: str, path: str, what: str) -> list[str]:
    """Set `$children` (the names in `path`, one a line), `$child_files` and `$child_bytes` (what
    they hold); all empty or 0 when `path` does not exist. Any other answer fails the step."""
    quoted = shlex.quote(path)
    return [
        *_url_lines(base_url, path),
        'children=""; child_files=0; child_bytes=0',
        f'listing=$({_CURL} -w "\\n%{{http_code}}" "$url?op=LISTSTATUS&{_USER}" || true)',
        "code=${listing##*$'\\n'}",
        'if [ "$code" = 200 ]; then',
        '  children=$(printf \'%s\\n\' "${listing%$\'\\n\'*}" | grep -o \'"pathSuffix" *: *"[^"]*"\' '
        '| sed \'s/^"pathSuffix" *: *"//; s/"$//\' || true)',
        f'  summary=$({_CURL} -w "\\n%{{http_code}}" "$url?op=GETCONTENTSUMMARY&{_USER}" || true)',
        "  code=${summary##*$'\\n'}",
        "  " + _expect("200", f'"{what}: WebHDFS summary of "{quoted}" answered HTTP $code"'),
        "  child_files=$(printf '%s' \"$summary\" | sed -n 's/.*\"fileCount\" *: *\\([0-9]*\\).*/\\1/p' | head -n 1)",
        "  child_bytes=$(printf '%s' \"$summary\" | sed -n 's/.*\"length\" *: *\\([0-9]*\\).*/\\1/p' | head -n 1)",
        f'elif [ "$code" != 404 ]; then echo "{what}: WebHDFS listing of "{quoted}" answered HTTP $code" >&2; exit 1',
        "fi",
    ]


def upload_lines(base_url: str, path: str, local_dirs: dict[str, Shell], what: str) -> list[str]:
    """Create `path` and copy each local directory's files into `path/<name>` (as `hadoop fs -put`).

    Each file goes up in one `op=CREATE` (curl follows the NameNode's redirect to a DataNode
    and sends the file there); an existing file is refused (`overwrite=false`), as `-put` does.
    Only plain files are copied: the generators write flat directories of parts.
    """
    quoted = shlex.quote(path)
    lines = mkdir_lines(base_url, path, what)
    for name, local in local_dirs.items():
        target = shlex.quote(urllib.parse.quote(name, safe=""))
        lines += [
            f"for file in {local}/*; do",
            f'  [ -f "$file" ] || {{ echo "{what}: not a file to upload: $file" >&2; exit 1; }}',
            '  part=$(basename "$file")',
            "  " + _status(f'-L -X PUT -T "$file" "$url/"{target}"/$part?op=CREATE&overwrite=false&{_USER}"'),
            "  "
            + _expect("201", f'"{what}: WebHDFS upload of $file to "{quoted}/{target}" answered HTTP $code"'),
            "done",
        ]
    return lines
