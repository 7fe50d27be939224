#!/usr/bin/env python3
# rpcbind and mountd for the NFSv3 tests, in place of nfs-utils: the kernel's
# server registers its programs (nfsd v3, lockd) with rpcbind when it
# starts, and a v3 client asks mountd for the export's root handle.
#
#   rpcstub.py MOUNTPORT FH
#       serves, over TCP on 127.0.0.1, rpcbind (port 111; every SET and
#       UNSET succeeds, GETPORT answers from what was set) and mountd (on
#       MOUNTPORT; MNT of any path answers the handle FH, given in hex, in
#       v1's 32 bytes or v3's own size).  Prints "ready" once both listen,
#       then serves until killed.
import socket
import struct
import sys
import threading

RPCBIND, MOUNT = 100000, 100005
ports = {}                      # (prog, vers, prot): port, from SET


def u32(b, off):
    return struct.unpack_from('>I', b, off)[0], off + 4


def opaque(b, off):
    n, off = u32(b, off)
    return b[off:off + n], off + (n + 3) // 4 * 4


def xdr_opaque(data):
    return struct.pack('>I', len(data)) + data + b'\0' * (-len(data) % 4)


def rpcbind(vers, proc, args):
    if proc in (1, 2):          # SET, UNSET: v2 (prog vers prot port), v3/4
        prog, off = u32(args, 0)
        v, off = u32(args, off)
        if vers == 2:
            prot, off = u32(args, off)
            port, off = u32(args, off)
            if proc == 1:
                ports[prog, v, prot] = port
            else:
                for k in [k for k in ports if k[:2] == (prog, v)]:
                    del ports[k]
        return struct.pack('>I', 1)
    if proc == 3 and vers == 2:  # GETPORT
        prog, off = u32(args, 0)
        v, off = u32(args, off)
        prot, off = u32(args, off)
        return struct.pack('>I', ports.get((prog, v, prot), 0))
    return None


def mountd(fh, vers, proc, args):
    if proc == 1:               # MNT
        if vers == 3:
            return struct.pack('>I', 0) + xdr_opaque(fh) + struct.pack('>II', 1, 1)
        return struct.pack('>I', 0) + fh.ljust(32, b'\0')
    if proc == 3:               # UMNT
        return b''
    return None


def reply(call, fh):
    xid, off = u32(call, 0)
    _, off = u32(call, off)             # CALL
    _, off = u32(call, off)             # RPC version 2
    prog, off = u32(call, off)
    vers, off = u32(call, off)
    proc, off = u32(call, off)
    for _ in range(2):                  # credential, verifier
        _, off = u32(call, off)
        _, off = opaque(call, off)
    args = call[off:]
    if proc == 0:
        res = b''
    elif prog == RPCBIND:
        res = rpcbind(vers, proc, args)
    elif prog == MOUNT:
        res = mountd(fh, vers, proc, args)
    else:
        res = None
    # accepted, AUTH_NONE verifier; SUCCESS or PROC_UNAVAIL
    head = struct.pack('>IIIII', xid, 1, 0, 0, 0)
    if res is None:
        return head + struct.pack('>I', 3)
    return head + struct.pack('>I', 0) + res


def recv_all(c, n):
    b = b''
    while len(b) < n:
        d = c.recv(n - len(b))
        if not d:
            raise EOFError
        b += d
    return b


def serve_conn(c, fh):
    try:
        while True:
            call = b''
            while True:                 # record marking: fragments
                mark, _ = u32(recv_all(c, 4), 0)
                call += recv_all(c, mark & 0x7fffffff)
                if mark & 0x80000000:
                    break
            r = reply(call, fh)
            c.sendall(struct.pack('>I', 0x80000000 | len(r)) + r)
    except (EOFError, OSError, struct.error):
        pass
    finally:
        c.close()


def listen(port, fh):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('127.0.0.1', port))
    s.listen(16)

    def loop():
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve_conn, args=(c, fh), daemon=True).start()
    return threading.Thread(target=loop, daemon=True)


def main():
    fh = bytes.fromhex(sys.argv[2])
    threads = [listen(111, fh), listen(int(sys.argv[1]), fh)]
    for t in threads:
        t.start()
    print('ready', flush=True)
    threading.Event().wait()


main()
