#!/usr/bin/env bats
# The network and file tapsets: socket.* (sock tracepoints where the
# kernel has them, else kprobes), tcp.*, udp.* and vfs.* (kprobes with
# BTF), against the loopback workloads of tests/helpers/tcpwork.py and a
# file's reads and writes, with exact sizes, ports and addresses.

load helpers
load tcp

setup() {
	require_root
}

teardown() {
	stop_leftover_tool
}

# require_sock_paths: socket.send/receive have a tracepoint or kprobes
require_sock_paths() {
	[ -e "$TRACEFS/events/sock/sock_send_length" ] || require_kprobes
}

@test "tapkit: socket.send and socket.receive count each message, its family, protocol and bytes" {
	require_sock_paths
	run_pid tapkit -c "python3 $WORK pair 4 1000 300 client" -e 'global n, b
probe socket.send, socket.receive {
	if (pid() == target() && family == 2 && protocol == 6) { n[name]++; b[name] += size > 0 ? size : 0 }
}
probe end { foreach (k+ in n) printf("%s %d\n", k, b[k]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# the client sends 1000 bytes and reads the server's 300 until EOF;
	# the server (a child) is another process
	[ "$(sed 1d <<<"$output")" = "socket.receive 300
socket.send 1000" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: socket.sendmsg and socket.recvmsg: the sizes asked, family, protocol, type and state (kprobes)" {
	require_kprobes
	run_pid tapkit -c "python3 $WORK pair 4 1000 300 client" -e 'global r
probe socket.sendmsg { if (pid() == target()) printf("%s %d %d %d %d %d\n", name, size, family, protocol, type, state) }
probe socket.recvmsg { if (pid() == target()) r[name, size, family, protocol, type, state] = 1 }
probe end { foreach ([n, a, b, c, d, e] in r) printf("%s %d %d %d %d %d\n", n, a, b, c, d, e) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# one send of 1000 bytes on a connected (SS_CONNECTED, 3) TCP stream
	# socket; reads of 65536 bytes until EOF
	[ "$(grep -v '^lport=' <<<"$output")" = "socket.sendmsg 1000 2 6 1 3
socket.recvmsg 65536 2 6 1 3" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: socket.aio_write and socket.aio_read: write(), writev(), read() and readv() of a socket, with their results (kprobes)" {
	require_kprobes
	run_pid tapkit -c "python3 $WORK unixrw" -e 'global s
probe socket.aio_write, socket.aio_read {
	if (pid() == target()) printf("%s %d %d %d %d %d %d\n", name, size, family, protocol, type, state, flags)
}
probe socket.aio_write.return, socket.aio_read.return {
	if (pid() == target()) printf("%s.return %d %d %d %d %d\n", name, size, success, family, type, state)
}
probe socket.sendmsg { if (pid() == target()) s[size]++ }
probe end { foreach (n+ in s) printf("sendmsg %d\n", n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# a connected (3) Unix (1) stream (1) pair: the sizes asked, then the
	# results; readv() of 150 gets the 123 there are, the empty
	# non-blocking read() -EAGAIN; send() is a sendmsg but no write, and
	# the writes are sendmsgs too
	[ "$output" = "socket.aio_write 700 1 0 1 3 0
socket.aio_write.return 700 1 1 1 3
socket.aio_write 123 1 0 1 3 0
socket.aio_write.return 123 1 1 1 3
socket.aio_read 700 1 0 1 3 0
socket.aio_read.return 700 1 1 1 3
socket.aio_read 150 1 0 1 3 0
socket.aio_read.return 123 1 1 1 3
socket.aio_read 10 1 0 1 3 0
socket.aio_read.return -11 0 1 1 3
sendmsg 1
sendmsg 123
sendmsg 700" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: tcp.sendmsg, tcp.recvmsg and their returns: sizes, addresses and ports of one connection" {
	require_kprobes
	# a recvmsg() that starts once the server's FIN is in has the local
	# port released already (the socket is in TIME_WAIT: the kernel's
	# inet_num is 0), so the client's port is the send's
	run_pid tapkit -c "python3 $WORK pair 4 1000 300 client" -e 'global s, r
probe tcp.sendmsg { if (pid() == target()) s[name, size, family, sport]++ }
probe tcp.sendmsg.return { if (pid() == target()) s["ret", size, 0, 0]++ }
probe tcp.recvmsg.return {
	if (pid() == target() && size > 0) r[saddr, daddr, dport] += size
}
probe end {
	foreach ([a, b, c, d] in s) printf("%s %d %d %d %d\n", a, b, c, d, s[a, b, c, d])
	foreach ([sa, da, dp] in r) printf("%s %s %d %d\n", sa, da, dp, r[sa, da, dp])
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	# the workload's line first, then the end probe's
	parse_pair "$(head -1 <<<"$output")"
	[ "$(sed 1d <<<"$output")" = "tcp.sendmsg 1000 2 $C 1
ret 1000 0 0 1
127.0.0.1 127.0.0.1 $L 300" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

# fins "SPORT DPORT": the FIN segments among tcp.receive's counted lines
fins() {
	awk -v p=" $1 " 'index($0, p) && / fin=1 / { n += substr($NF, 2) } END { print n + 0 }'
}

@test "tapkit: tcp.receive: the segments of an IPv4 and an IPv6 connection, their ends and flags (kprobes)" {
	require_kprobes
	local v a fam lines lport cport
	for v in 4 6; do
		run_pid tapkit -c "python3 $WORK pair $v 1000 300 client" -e 'global s
probe tcp.receive {
	if (protocol == 6)
		s[sprintf("%s %s %s %d %d %d syn=%d ack=%d psh=%d fin=%d rst=%d", name, saddr, daddr, family,
			  sport, dport, syn, ack, psh, fin, rst)]++
}
probe end { foreach (k+ in s) printf("%s x%d\n", k, s[k]) }'
		[ "$status" -eq 0 ] || { show_run; false; }
		lport=$(sed -n 's/^lport=\([0-9]*\) cport=.*/\1/p' <<<"$output")
		cport=$(sed -n 's/^lport=[0-9]* cport=\([0-9]*\) .*/\1/p' <<<"$output")
		[ -n "$lport" ] && [ -n "$cport" ] || { show_run; false; }
		if [ $v = 4 ]; then a=127.0.0.1 fam=2; else a=0000:0000:0000:0000:0000:0000:0000:0001 fam=10; fi
		lines=$(grep "^tcp.receive $a $a $fam \($cport $lport\|$lport $cport\) " <<<"$output")
		# the handshake, each side's data (pushed) and each side's FIN
		# once; the rest are ACKs
		[ "$(grep -c " $cport $lport syn=1 ack=0 psh=0 fin=0 rst=0 x1\$" <<<"$lines")" -eq 1 ] &&
			[ "$(grep -c " $lport $cport syn=1 ack=1 psh=0 fin=0 rst=0 x1\$" <<<"$lines")" -eq 1 ] &&
			grep -q " $cport $lport syn=0 ack=1 psh=1 " <<<"$lines" &&
			grep -q " $lport $cport syn=0 ack=1 psh=1 " <<<"$lines" &&
			[ "$(fins "$cport $lport" <<<"$lines")" = 1 ] &&
			[ "$(fins "$lport $cport" <<<"$lines")" = 1 ] &&
			! grep -q "rst=1" <<<"$lines" || { show_run; false; }
		# every segment of the connection was seen with its ends
		[ "$(grep -c "^tcp.receive " <<<"$output")" -eq "$(grep -c . <<<"$lines")" ] || { show_run; false; }
		assert_clean "$RUN_PID"
	done
}

@test "tapkit: tcp.*'s saddr and daddr of an IPv6 connection, as stap's format_ipaddr() prints them" {
	require_kprobes
	run_pid tapkit -c "python3 $WORK pair 6 1000 300 client" -e 'global r
probe tcp.sendmsg { if (pid() == target()) r["send", family, saddr, daddr, sport, dport] = 1 }
probe tcp.recvmsg.return {
	if (pid() == target() && size > 0) r["recv", family, saddr, daddr, 0, dport] = 1
}
probe end { foreach ([a, f, sa, da, sp, dp] in r) printf("%s %d %s %s %d %d\n", a, f, sa, da, sp, dp) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	parse_pair "$(head -1 <<<"$output")"
	# (the receive's sport is left out as in the IPv4 test)
	local lo=0000:0000:0000:0000:0000:0000:0000:0001
	[ "$(sed 1d <<<"$output" | sort)" = "recv 10 $lo $lo 0 $L
send 10 $lo $lo $C $L" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: tcp.disconnect and udp.* of sockets disconnected by connect(AF_UNSPEC)" {
	require_kprobes
	run_pid tapkit -c "python3 $WORK unspec" -e '
probe tcp.disconnect, udp.disconnect { if (pid() == target()) printf("%s %d %s %s %d %d\n", name, family, saddr, daddr, sport, dport) }
probe tcp.disconnect.return, udp.disconnect.return { if (pid() == target()) printf("%s ret %d\n", name, ret) }
probe udp.sendmsg { if (pid() == target()) printf("%s %d %s:%d -> %s:%d\n", name, size, saddr, sport, daddr, dport) }
probe udp.sendmsg.return, udp.recvmsg.return { if (pid() == target()) printf("%s ret %d %d\n", name, size, sport) }
probe udp.recvmsg { if (pid() == target()) printf("%s %d %d\n", name, size, sport) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	local l c u r
	read -r l c u r <<<"$(grep '^lport=' <<<"$output" | sed 's/[a-z]*=//g')"
	[ "$(grep -v '^lport=' <<<"$output")" = "tcp.disconnect 2 127.0.0.1 127.0.0.1 $c $l
tcp.disconnect ret 0
udp.sendmsg 7 127.0.0.1:$u -> 127.0.0.1:$r
udp.sendmsg ret 7 $u
udp.recvmsg 100 $r
udp.recvmsg ret 7 $r
udp.disconnect 2 127.0.0.1 127.0.0.1 $u $r
udp.disconnect ret 0" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: socket.create, socket.create.return and socket.close of one process's sockets" {
	require_kprobes
	run_pid tapkit -c "python3 $WORK unspec" -e 'global c, e, x
probe socket.create { if (pid() == target()) c[family, type, protocol, requester]++ }
probe socket.create.return { if (pid() == target()) e[success, err]++ }
probe socket.close { if (pid() == target()) x[family, type]++ }
probe end {
	foreach ([a, b, p, q] in c) printf("create %d %d %d %d: %d\n", a, b, p, q, c[a, b, p, q])
	foreach ([a, b] in e) printf("return %d %d: %d\n", a, b, e[a, b])
	foreach ([a, b] in x) printf("close %d %d: %d\n", a, b, x[a, b])
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	# a listener (protocol 0) and a client (6, as getaddrinfo() gives it)
	# made by socket(), one accepted (not made by __sock_create()), two
	# UDP sockets; all closed at the exit
	[ "$(sed 1d <<<"$output" | sort)" = "close 2 1: 3
close 2 2: 2
create 2 1 0 0: 1
create 2 1 6 0: 1
create 2 2 0 0: 2
return 1 0: 4" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: on a kernel without kprobes, tcp.* says what is missing" {
	[ ! -e "$TRACEFS/kprobe_events" ] || skip "this kernel has kprobes"
	run_pid tapkit -e 'probe tcp.sendmsg { print(size) }'
	[ "$status" -eq 1 ]
	[[ ${stderr_lines[0]} == *"error: kernel.function needs kprobes, which this kernel does not have (no kprobe_events in tracefs)" ]] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: vfs.read and vfs.write of one file: sizes, device, inode and results" {
	require_kprobes
	local f=$BATS_TEST_TMPDIR/vfsfile ino maj min
	: >"$f"
	ino=$(stat -c %i "$f") maj=$(stat -c %Hd "$f") min=$(stat -c %Ld "$f")
	run_pid tapkit -c "sh -c 'dd if=/dev/zero of=$f bs=123 count=1 conv=notrunc status=none; dd if=$f of=/dev/null bs=1000 status=none'" -e '
probe vfs.write { if (ino == $1) printf("w %d %d,%d %d\n", bytes_to_write, MAJOR(dev), MINOR(dev), devname != "") }
probe vfs.write.return { if (ino == $1) printf("wr %d %d %d\n", ret, bytes_written, error) }
probe vfs.read { if (ino == $1) printf("r %d\n", bytes_to_read) }
probe vfs.read.return { if (ino == $1) printf("rr %d [%s]\n", bytes_read, error_str) }' "$ino"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "w 123 $maj,$min 1
wr 123 123 0
r 1000
rr 123 []
r 1000
rr 0 []" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit -L: the kprobe aliases list their variables and BTF's, not the probes @entry() adds" {
	[ -r /sys/kernel/btf/vmlinux ] || skip "requires: /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)"
	run --separate-stderr tapkit -L 'vfs.read.return'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$output" = 'vfs.read.return name:string file:long dev:long ino:long ret:long bytes_read:long error:long error_str:string $file:struct file* $buf:char* $count:size_t $pos:loff_t* $return:ssize_t' ] ||
		{ echo "$output"; false; }
	run --separate-stderr tapkit -l 'tcp.*'
	[ "$status" -eq 0 ] && [ "$output" = $'tcp.disconnect\ntcp.receive\ntcp.recvmsg\ntcp.sendmsg\ntcp.setsockopt' ] || { echo "$output"; false; }
}

@test "tapkit: netdev.open, close, change_mtu, change_mac, set_promiscuity, register, get_stats and ioctl of a namespace's lo (kprobes)" {
	require_kprobes
	# the workload and the ip(8) it runs: target_set_pid()
	run_pid tapkit -c "python3 $WORK netdev" -e '
function show(what, dev) { if (target_set_pid(pid())) printf("%s %s\n", what, dev) }
probe netdev.register { show("register", dev_name) }
probe netdev.open { show("open", dev_name) }
probe netdev.close { show("close", dev_name) }
probe netdev.get_stats { show("stats", dev_name) }
probe netdev.change_mtu { if (target_set_pid(pid())) printf("mtu %s %d %d\n", dev_name, old_mtu, new_mtu) }
probe netdev.change_mac { if (target_set_pid(pid())) printf("mac %s %d %s %s\n", dev_name, mac_len, old_mac, new_mac) }
probe netdev.set_promiscuity {
	if (target_set_pid(pid())) printf("promisc %s %d %d %d\n", dev_name, inc, enable, disable)
}
probe netdev.ioctl { if (target_set_pid(pid())) printf("ioctl %d %d\n", cmd, arg != 0) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# in the order the workload does them (if_nametoindex() is a
	# SIOCGIFINDEX ioctl, 35123, before SIOCGIFMTU, 35105); lo's
	# statistics are also read when the kernel tells of a change, so only
	# their presence is sure
	[ "$(grep -v '^stats ' <<<"$output")" = "register lo
open lo
mtu lo 65536 1400
mac lo 6 00:00:00:00:00:00 02:00:00:00:00:01
ioctl 35123 1
promisc lo 1 1 0
ioctl 35105 1
promisc lo -1 0 1
close lo" ] || { show_run; false; }
	grep -qx "stats lo" <<<"$output" || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: tcp.setsockopt names the option and its size, and its return the result (kprobes)" {
	require_kprobes
	# an int is 4 bytes, the congestion control's name "cubic" 5
	run_pid tapkit -c "python3 -c 'import socket; s = socket.socket(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b\"cubic\")'" -e '
probe tcp.setsockopt { if (pid() == target()) printf("%s %d %d %s %d\n", name, level, optname, optstr, optlen) }
probe tcp.setsockopt.return { if (pid() == target()) printf("%s ret %d\n", name, ret) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "tcp.setsockopt 6 1 TCP_NODELAY 4
tcp.setsockopt ret 0
tcp.setsockopt 6 3 TCP_CORK 4
tcp.setsockopt ret 0
tcp.setsockopt 6 13 TCP_CONGESTION 5
tcp.setsockopt ret 0" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}
