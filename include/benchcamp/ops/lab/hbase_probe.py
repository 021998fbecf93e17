"""What the lab's health check reads of HBase: its znodes in ZooKeeper, through kazoo.

HBase publishes in ZooKeeper where a client must go: the active master (`/hbase/master`),
the live region servers (`/hbase/rs/<name>`, ephemeral) and the server holding `hbase:meta`
with the region's state (`/hbase/meta-region-server`). Every client starts there, so a
store whose meta region is OPEN on a registered, listening region server serves reads and
writes. ZooKeeper's four-letter words (`ruok`, `srvr`) prove only that ZooKeeper runs, and a
Java client probe costs a JVM start (~2 s) per check; this reads the znodes in one short
kazoo session instead.

The znodes' content is HBase's protobuf, read here by hand: HBase publishes no Python classes
for it, and the probe needs three fields (server name, port, region state), fewer lines than
generating message classes from HBase's .proto files would take.
"""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass

# RegionState.State in HBase's protobuf (ClusterStatus.proto); meta-region-server omits it
# when written by older versions, which HBase reads as OPEN.
REGION_STATES = {0: "OFFLINE", 1: "PENDING_OPEN", 2: "OPENING", 3: "OPEN", 4: "PENDING_CLOSE"}
REGION_STATES |= {5: "CLOSING", 6: "CLOSED", 7: "SPLITTING", 8: "SPLIT", 9: "FAILED_OPEN"}
REGION_STATES |= {10: "FAILED_CLOSE", 11: "MERGING", 12: "MERGED", 13: "SPLITTING_NEW"}
REGION_STATES |= {14: "MERGING_NEW", 15: "ABNORMALLY_CLOSED"}
_OPEN = 3
# kazoo logs every refused or dropped connection as a warning; the probe reports the failure
# itself (ProbeError, shown in the lab's status), so a ZooKeeper still starting is not noise.
_KAZOO_LOG = logging.getLogger(__name__ + ".kazoo")
_KAZOO_LOG.setLevel(logging.ERROR)


class ProbeError(RuntimeError):
    """ZooKeeper could not be read, or answered something this probe cannot read."""


@dataclass(frozen=True)
class ServerLocation:
    """A server named in a znode: host, RPC port and start code (ms since the epoch)."""

    host: str
    port: int
    start_code: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def read_znodes(
    host: str, port: int, data: tuple[str, ...], children: tuple[str, ...] = (), timeout_s: float = 2.0
) -> tuple[dict[str, bytes | None], dict[str, list[str] | None]]:
    """Data of the `data` znodes and child names of the `children` ones (None: no such node)."""
    from kazoo.client import KazooClient
    from kazoo.exceptions import KazooException, NoNodeError
    from kazoo.handlers.threading import KazooTimeoutError

    client = KazooClient(
        hosts=f"{host}:{port}", timeout=timeout_s, connection_retry={"max_tries": 0}, logger=_KAZOO_LOG
    )
    found: dict[str, bytes | None] = {}
    listed: dict[str, list[str] | None] = {}
    try:
        client.start(timeout=timeout_s)
        for path in data:
            try:
                found[path] = client.get(path)[0]
            except NoNodeError:
                found[path] = None
        for path in children:
            try:
                listed[path] = list(client.get_children(path))
            except NoNodeError:
                listed[path] = None
    except (KazooException, KazooTimeoutError) as exc:
        raise ProbeError(f"ZooKeeper {host}:{port}: {type(exc).__name__}: {exc}") from exc
    finally:
        client.stop()
        client.close()
    return found, listed


def _varint(buffer: bytes, offset: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if offset >= len(buffer):
            raise ProbeError("protobuf varint runs past the znode's end")
        byte = buffer[offset]
        value |= (byte & 0x7F) << shift
        offset += 1
        if byte < 0x80:
            return value, offset
        shift += 7


def _fields(message: bytes) -> dict[int, int | bytes]:
    """The varint and length-delimited fields of a protobuf message (last one wins)."""
    fields: dict[int, int | bytes] = {}
    offset = 0
    while offset < len(message):
        key, offset = _varint(message, offset)
        number, wire = key >> 3, key & 7
        if wire == 0:
            fields[number], offset = _varint(message, offset)
        elif wire == 2:
            size, offset = _varint(message, offset)
            if offset + size > len(message):
                raise ProbeError("protobuf field runs past the znode's end")
            fields[number] = message[offset : offset + size]
            offset += size
        else:
            raise ProbeError(f"protobuf wire type {wire} not expected in an HBase znode")
    return fields


def _record(znode: bytes) -> dict[int, int | bytes]:
    """The protobuf message of an HBase znode: 0xFF magic, the writer's id, 'PBUF', the message."""
    if len(znode) < 5 or znode[0] != 0xFF:
        raise ProbeError("znode data lacks HBase's magic byte")
    (id_length,) = struct.unpack(">i", znode[1:5])
    start = 5 + id_length
    if znode[start : start + 4] != b"PBUF":
        raise ProbeError("znode data is not an HBase protobuf record")
    return _fields(znode[start + 4 :])


def server_location(znode: bytes) -> ServerLocation:
    """The ServerName (field 1) of `/hbase/master` (a Master message) or
    `/hbase/meta-region-server` (a MetaRegionServer message)."""
    server = _record(znode).get(1)
    if not isinstance(server, bytes):
        raise ProbeError("znode names no server")
    name = _fields(server)
    host, port_number, start_code = name.get(1), name.get(2), name.get(3, 0)
    if not isinstance(host, bytes) or not isinstance(port_number, int) or not isinstance(start_code, int):
        raise ProbeError("znode's server name lacks host or port")
    return ServerLocation(host.decode(), port_number, start_code)


def meta_region_state(znode: bytes) -> str:
    """The state of hbase:meta's region in `/hbase/meta-region-server` (field 3; absent: OPEN)."""
    state = _record(znode).get(3, _OPEN)
    number = state if isinstance(state, int) else _OPEN
    return REGION_STATES.get(number, str(number))


def region_server_name(location: ServerLocation) -> str:
    """The name a live region server registers under /hbase/rs: host,port,startcode."""
    return f"{location.host},{location.port},{location.start_code}"
