#!/usr/bin/env python3
# TCP and network-device workloads of the live tests, with known ports, PIDs,
# comms and bytes.  Only loopback addresses (or a network namespace's own).
#
#   tcpwork.py pair 4|6 TX RX client|server [hold]
#       one connection: the client (comm tcpcli) sends TX bytes, shuts down
#       its side and reads until EOF; the server (comm tcpsrv) listens,
#       accepts, reads until EOF, sends RX bytes and closes.  The named role
#       is played by this process, the other by a child.  With "hold" it
#       first waits for a byte on stdin.  Prints
#       "lport=L cport=C client=PID server=PID" at the end.
#   tcpwork.py unspec
#       a TCP connection over 127.0.0.1 (accepted) and a connected UDP socket that
#       sends 7 bytes to another (read with recv(100)); then both are
#       disconnected by connect() to an AF_UNSPEC address.  Prints
#       "lport=L cport=C uport=U rport=R" (listener, TCP client, UDP
#       sender and receiver ports).
#   tcpwork.py retrans SECS
#       (in a network namespace of its own) connect over lo, take lo down,
#       send 1000 bytes and wait SECS: the kernel retransmits them; then
#       reset both ends (nothing retransmits after it ends).  Prints
#       "lport=L cport=C pid=PID" first.
#   tcpwork.py netdev
#       in a network namespace of its own (whose lo it registers), with
#       ip(8): lo up, its MTU 1400, its address 02:00:00:00:00:01 (which lo
#       refuses); a packet socket makes lo promiscuous, asks its MTU with
#       SIOCGIFMTU and closes (promiscuity back off); /proc/net/dev is read
#       (lo's statistics); lo down.
#   tcpwork.py unixrw
#       a Unix stream socket pair: write() of 700 bytes and writev() of 100 +
#       23 on one end; read() of 700 and readv() of 100 + 50 (which gets
#       the 123) on the other, then a non-blocking read() of 10 of it, empty
#       (EAGAIN); then send() of 1 byte, which is no write().
import ctypes
import fcntl
import os
import socket
import struct
import sys
import time


def setname(name):
    ctypes.CDLL(None).prctl(15, name.encode(), 0, 0, 0)


def drain(s):
    n = 0
    while True:
        d = s.recv(65536)
        if not d:
            return n
        n += len(d)


def serve(ls, rx):
    a, _ = ls.accept()
    drain(a)
    a.sendall(b'y' * rx)
    a.close()


def connect(fam, host, port, tx):
    c = socket.socket(fam, socket.SOCK_STREAM)
    c.connect((host, port))
    cport = c.getsockname()[1]
    c.sendall(b'x' * tx)
    c.shutdown(socket.SHUT_WR)
    drain(c)
    c.close()
    return cport


def listener(fam, host):
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, int(os.environ.get('TCPWORK_PORT', '0'))))
    ls.listen(1)
    return ls


def pair(ver, tx, rx, role, hold):
    fam = socket.AF_INET6 if ver == '6' else socket.AF_INET
    host = '::1' if ver == '6' else '127.0.0.1'
    if hold == 'hold':
        sys.stdin.buffer.read(1)
    r, w = os.pipe()
    if role == 'server':
        setname('tcpsrv')
        ls = listener(fam, host)
        if hold == 'hold-listen':
            sys.stdin.buffer.read(1)
        lport = ls.getsockname()[1]
        child = os.fork()
        if child == 0:
            setname('tcpcli')
            os.write(w, b'%d\n' % connect(fam, host, lport, tx))
            os._exit(0)
        serve(ls, rx)
        ls.close()
        cport = int(os.read(r, 64))
        os.waitpid(child, 0)
        client, server = child, os.getpid()
    else:
        setname('tcpcli')
        child = os.fork()
        if child == 0:
            setname('tcpsrv')
            ls = listener(fam, host)
            os.write(w, b'%d\n' % ls.getsockname()[1])
            serve(ls, rx)
            ls.close()
            os._exit(0)
        lport = int(os.read(r, 64))
        cport = connect(fam, host, lport, tx)
        os.waitpid(child, 0)
        client, server = os.getpid(), child
    print('lport=%d cport=%d client=%d server=%d' % (lport, cport, client, server),
          flush=True)


def retrans(secs):
    setname('tcpret')
    ls = listener(socket.AF_INET, '127.0.0.1')
    c = socket.create_connection(ls.getsockname())
    a, _ = ls.accept()
    print('lport=%d cport=%d pid=%d' % (ls.getsockname()[1], c.getsockname()[1],
                                        os.getpid()), flush=True)
    os.system('ip link set lo down')
    c.send(b'x' * 1000)
    time.sleep(secs)
    # abortive closes: no orphan socket goes on retransmitting its FIN
    for s in (a, c):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
        s.close()
    ls.close()
    os._exit(0)


def disconnect(s):
    sa = struct.pack('H14x', socket.AF_UNSPEC)
    if ctypes.CDLL(None, use_errno=True).connect(s.fileno(), sa, len(sa)) < 0:
        raise OSError(ctypes.get_errno(), 'connect(AF_UNSPEC)')


def unspec():
    ls = listener(socket.AF_INET, '127.0.0.1')
    c = socket.create_connection(ls.getsockname())
    a, _ = ls.accept()
    lport, cport = ls.getsockname()[1], c.getsockname()[1]
    disconnect(c)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(('127.0.0.1', 0))
    r.bind(('127.0.0.1', 0))
    u.connect(r.getsockname())
    u.send(b'x' * 7)
    r.recv(100)
    uport, rport = u.getsockname()[1], r.getsockname()[1]
    disconnect(u)
    print('lport=%d cport=%d uport=%d rport=%d' % (lport, cport, uport, rport),
          flush=True)


def netdev():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x40000000) != 0:           # CLONE_NEWNET
        raise OSError(ctypes.get_errno(), 'unshare')
    os.system('ip link set lo up')
    os.system('ip link set lo mtu 1400')
    os.system('ip link set lo address 02:00:00:00:00:01 2>/dev/null')
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    # SOL_PACKET, PACKET_ADD_MEMBERSHIP of a struct packet_mreq for
    # PACKET_MR_PROMISC
    s.setsockopt(263, 1, struct.pack('iHH8s', socket.if_nametoindex('lo'), 1, 0, b''))
    fcntl.ioctl(s, 0x8921, struct.pack('16si', b'lo', 0))     # SIOCGIFMTU
    s.close()
    with open('/proc/net/dev') as f:
        f.read()
    os.system('ip link set lo down')


def unixrw():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    os.write(a.fileno(), b'x' * 700)
    os.writev(a.fileno(), [b'y' * 100, b'z' * 23])
    os.read(b.fileno(), 700)
    os.readv(b.fileno(), [bytearray(100), bytearray(50)])
    b.setblocking(False)
    try:
        os.read(b.fileno(), 10)
    except BlockingIOError:
        pass
    a.send(b'q')


if sys.argv[1] == 'pair':
    pair(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5],
         sys.argv[6] if len(sys.argv) > 6 else None)
elif sys.argv[1] == 'unspec':
    unspec()
elif sys.argv[1] == 'netdev':
    netdev()
elif sys.argv[1] == 'unixrw':
    unixrw()
else:
    retrans(float(sys.argv[2]))
