# The kernel's NFS server and client on loopback, for the nfsd.* and nfs.*
# tapsets: a tmpfs exported as NFSv4's root, mounted over 127.0.0.1 and ::1.  No
# rpc.mountd or nfs-utils: the export caches get what rpc.mountd would
# write to them, valid until 2038, and the NFSv4-only server needs no
# rpcbind.
#
#   nfs_start DIR   export DIR/export, mount it at DIR/mnt ($NFS_MNT) over
#                   127.0.0.1, and at DIR/mnt6 over ::1 (NFSv4.1); the
#                   first create waits out the server's grace period (10 s)
#   nfs_stop DIR    unmount, stop the server, forget the export

# require_nfs: the server and client modules, and kprobes for the tapsets
require_nfs() {
	require_kprobes
	[ -d /proc/fs/nfsd ] && [ -d /sys/module/nfsv4 ] ||
		skip "requires: the nfsd and nfsv4 modules (the kernel's NFS server and client)"
}

nfs_start() {
	local d=$1 e=2147483647 p
	NFS_MNT=$d/mnt
	[ -d /proc/fs/nfsd ] && [ -d /sys/module/nfsv4 ] || return 0
	[ -d /sys/kernel/tracing/events ] || return 0
	mkdir -p "$d/export" "$d/mnt" "$d/v4recovery" || return 1
	mount -t tmpfs -o mode=1777 tmpfs "$d/export" || return 1
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	p=/proc/fs/nfsd
	echo 10 >$p/nfsv4leasetime && echo 10 >$p/nfsv4gracetime &&
		echo "$d/v4recovery" >$p/nfsv4recoverydir &&
		echo "-2 -3 +4 +4.1 +4.2" >$p/versions || return 1
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
	: >"$d/mnt/.ready"
}

nfs_stop() {
	local d=$1
	mountpoint -q "$d/mnt6" && umount "$d/mnt6"
	mountpoint -q "$d/mnt" && umount "$d/mnt"
	if mountpoint -q /proc/fs/nfsd; then
		echo 0 >/proc/fs/nfsd/threads
		for c in auth.unix.ip nfsd.fh nfsd.export; do
			date +%s >/proc/net/rpc/$c/flush
		done
		umount /proc/fs/nfsd
	fi
	mountpoint -q "$d/export" && umount "$d/export"
	return 0
}
