# The kernel's NFS server and client on loopback, for the nfsd.* and nfs.*
# tapsets: a tmpfs exported as NFSv4's root, mounted over 127.0.0.1 and ::1,
# and over NFSv3.  No nfs-utils: the export caches get what rpc.mountd
# would write to them, valid until 2038, and tests/helpers/rpcstub.py
# stands in for rpcbind (the server registers v3 and lockd with it) and
# for mountd (a v3 mount asks it for the export's handle).
#
#   nfs_start DIR   export DIR/export, mount it at DIR/mnt ($NFS_MNT) over
#                   127.0.0.1, at DIR/mnt6 over ::1 (NFSv4.1), and at
#                   DIR/mnt3 ($NFS_MNT3) over NFSv3; the first NFSv4
#                   create waits out the server's grace period (10 s)
#   nfs_stop DIR    unmount, stop the server, forget the export

# require_nfs: the server and client modules, and kprobes for the tapsets
require_nfs() {
	require_kprobes
	[ -d /proc/fs/nfsd ] && [ -d /sys/module/nfsv4 ] ||
		skip "requires: the nfsd and nfsv4 modules (the kernel's NFS server and client)"
}

nfs_start() {
	local d=$1 e=2147483647 p
	NFS_MNT=$d/mnt NFS_MNT3=$d/mnt3
	[ -d /proc/fs/nfsd ] && [ -d /sys/module/nfsv4 ] || return 0
	[ -d /sys/kernel/tracing/events ] || return 0
	mkdir -p "$d/export" "$d/mnt" "$d/v4recovery" || return 1
	mount -t tmpfs -o mode=1777 tmpfs "$d/export" || return 1
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	p=/proc/fs/nfsd
	echo 10 >$p/nfsv4leasetime && echo 10 >$p/nfsv4gracetime &&
		echo "$d/v4recovery" >$p/nfsv4recoverydir &&
		echo "-2 +3 +4 +4.1 +4.2" >$p/versions || return 1
	# rpcbind and mountd (port 20048, as rpc.mountd's); the handle is the
	# export's root: fsid type 1 (a number, 0), fileid type 0
	python3 "$TAPKIT_TOP/tests/helpers/rpcstub.py" 20048 0100010000000000 \
		>"$d/rpcstub.out" 2>&1 &
	echo $! >"$d/rpcstub.pid"
	for _ in $(seq 1 100); do
		grep -q ready "$d/rpcstub.out" && break
		sleep 0.1
	done
	grep -q ready "$d/rpcstub.out" || return 1
	# the client 127.0.0.1 is the domain "tapkit"; fsid 0 (NFSv4's root)
	# is the export; rw, insecure, no_root_squash, no_subtree_check, fsid
	echo "nfsd 127.0.0.1 $e tapkit" >/proc/net/rpc/auth.unix.ip/channel &&
		echo "nfsd ::1 $e tapkit" >/proc/net/rpc/auth.unix.ip/channel &&
		echo "tapkit 1 \\x00000000 $e $d/export" >/proc/net/rpc/nfsd.fh/channel &&
		echo "tapkit $d/export $e 9218 65534 65534 0" >/proc/net/rpc/nfsd.export/channel &&
		echo "tcp 2049" >$p/portlist && echo 2 >$p/threads || return 1
	mount -t nfs4 -o vers=4.2,addr=127.0.0.1,clientaddr=127.0.0.1 \
		127.0.0.1:/ "$d/mnt" || return 1
	# NFSv4.1 over ::1: a client of its own (one of the same minor
	# version would find the same server and share the 127.0.0.1 one)
	mkdir -p "$d/mnt6" && mount -t nfs4 -o vers=4.1,addr=::1,clientaddr=::1 \
		[::1]:/ "$d/mnt6" || return 1
	# NFSv3 without locks (no statd), mountd and nfsd at known ports
	mkdir -p "$d/mnt3" && mount -t nfs -o vers=3,proto=tcp,port=2049,mountproto=tcp,mountport=20048,nolock,addr=127.0.0.1 \
		"127.0.0.1:$d/export" "$d/mnt3" || return 1
	: >"$d/mnt/.ready"
}

nfs_stop() {
	local d=$1
	mountpoint -q "$d/mnt3" && umount "$d/mnt3"
	mountpoint -q "$d/mnt6" && umount "$d/mnt6"
	mountpoint -q "$d/mnt" && umount "$d/mnt"
	if mountpoint -q /proc/fs/nfsd; then
		echo 0 >/proc/fs/nfsd/threads
		for c in auth.unix.ip nfsd.fh nfsd.export; do
			date +%s >/proc/net/rpc/$c/flush
		done
		umount /proc/fs/nfsd
	fi
	[ -f "$d/rpcstub.pid" ] && kill "$(cat "$d/rpcstub.pid")" 2>/dev/null
	mountpoint -q "$d/export" && umount "$d/export"
	return 0
}
