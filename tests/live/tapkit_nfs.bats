#!/usr/bin/env bats
# The NFS tapsets: nfsd.* (the kernel's server) and nfs.fop.* (its client),
# kprobes with BTF in their modules, against an NFSv4.2 export of a tmpfs
# mounted over loopback (nfs.bash), with the test's own files and sizes.

load helpers
load nfs

setup_file() {
	[ "$(id -u)" = 0 ] || return 0
	nfs_start "$BATS_FILE_TMPDIR/nfs" >&3 2>&1 ||
		echo "# the NFS server or its mount did not start" >&3
}

teardown_file() {
	[ "$(id -u)" = 0 ] || return 0
	nfs_stop "$BATS_FILE_TMPDIR/nfs"
}

setup() {
	require_root
	NFS_MNT=$BATS_FILE_TMPDIR/nfs/mnt NFS_MNT3=$BATS_FILE_TMPDIR/nfs/mnt3
}

teardown() {
	stop_leftover_tool
}

@test "tapkit: nfsd.* see an NFSv4 client's lookup, mkdir, writes, commit, rename, reads and removes" {
	require_nfs
	mountpoint -q "$NFS_MNT" || { echo "# no NFS mount"; false; }
	local m=$NFS_MNT root="8: 00010001 00000000 00000000 00000000 00000000 00000000"
	# 256 KiB written with fsync: two unstable WRITEs of the client's
	# wsize (128 KiB), then a COMMIT; read back from the server after the
	# caches are dropped: two READs (spliced: no kvec); the file's handle
	# is not its directory's, and the COMMIT's is the WRITEs'
	run_pid tapkit -c "sh -c 'stat $m/nofile 2>/dev/null; mkdir $m/dir1; dd if=/dev/zero of=$m/f bs=64k count=4 conv=fsync status=none; mv $m/f $m/g; echo 3 > /proc/sys/vm/drop_caches; cat $m/g > /dev/null; rm $m/g; rmdir $m/dir1'" -e 'global d, dr, io, ioret, st, wfh
probe nfsd.dispatch { d[client_ip, proto, version, prog, proc]++ }
probe nfsd.dispatch.return { dr[retstr]++ }
probe nfsd.lookup { printf("%s %s %d %s [%s]\n", name, filename, filelen, client_ip, fh) }
probe nfsd.unlink { printf("%s %s %d %s [%s] %d\n", name, filename, filelen, client_ip, fh, type) }
probe nfsd.create { printf("%s %s %d %s [%s] %d %d %o\n", name, filename, filelen, client_ip, fh, type, iap_valid, iap_mode) }
probe nfsd.rename { printf("%s %s %d %s %d %s [%s] [%s]\n", name, filename, filelen, tname, tlen, client_ip, fh, tfh) }
probe nfsd.lookup.return, nfsd.create.return, nfsd.unlink.return, nfsd.rename.return, nfsd.commit.return {
	printf("%s %d %s\n", name, status, retstr)
}
probe nfsd.read, nfsd.write {
	io[sprintf("%s %d %d %d %d %d %s %s %d", name, offset, count, size, vlen > 0, file != 0, client_ip, units, fh != "'"$root"'")]++
}
probe nfsd.write { st[stable]++; wfh = fh }
probe nfsd.read.return, nfsd.write.return { ioret[name, status]++ }
probe nfsd.commit { printf("%s %d %d %d %s %d\n", name, count, size, offset, client_ip, fh == wfh) }
probe end {
	foreach (k+ in io) printf("%s x%d\n", k, io[k])
	foreach (v in st) printf("stable %d x%d\n", v, st[v])
	foreach ([n+, s] in ioret) printf("%s %d x%d\n", n, s, ioret[n, s])
	foreach ([ip, pr, v, pg, pc] in d) printf("dispatch %s %d %d %d %d %d\n", ip, pr, v, pg, pc, d[ip, pr, v, pg, pc] >= 10)
	foreach (r in dr) printf("dispatch.return %s %d\n", r, dr[r] == d["127.0.0.1", 6, 4, 100003, 1])
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	# the file's handle is its directory's, the export's root: 8 bytes,
	# version 1, fsid type 1 (a number: 0), fileid type 0 (the root);
	# nfsd's status in host order: 2 is NFSERR_NOENT; mkdir's mode is
	# sent whole (0777, with the umask apart), ATTR_MODE valid; a
	# directory's type is S_IFDIR; NFSv4's remove has no type; the client
	# looks the target of mv up first
	[ "$output" = "nfsd.lookup nofile 6 127.0.0.1 [$root]
nfsd.lookup.return 2 2
nfsd.create dir1 4 127.0.0.1 [$root] 16384 1 777
nfsd.create.return 0 0
nfsd.commit 0 0 0 127.0.0.1 1
nfsd.commit.return 0 0
nfsd.lookup g 1 127.0.0.1 [$root]
nfsd.lookup.return 2 2
nfsd.rename f 1 g 1 127.0.0.1 [$root] [$root]
nfsd.rename.return 0 0
nfsd.lookup g 1 127.0.0.1 [$root]
nfsd.lookup.return 0 0
nfsd.unlink g 1 127.0.0.1 [$root] 0
nfsd.unlink.return 0 0
nfsd.lookup dir1 4 127.0.0.1 [$root]
nfsd.lookup.return 0 0
nfsd.unlink dir1 4 127.0.0.1 [$root] 0
nfsd.unlink.return 0 0
nfsd.read 0 131072 131072 0 1 127.0.0.1 bytes 1 x1
nfsd.read 131072 131072 131072 0 1 127.0.0.1 bytes 1 x1
nfsd.write 0 131072 131072 1 1 127.0.0.1 bytes 1 x1
nfsd.write 131072 131072 131072 1 1 127.0.0.1 bytes 1 x1
stable 0 x2
nfsd.read.return 0 x2
nfsd.write.return 0 x2
dispatch 127.0.0.1 6 4 100003 1 1
dispatch.return 1 1" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

# nfsd_proc_script CREATE [RETURN,]: the nfsd.proc.* tests' script, each
# request's variables, READs and WRITEs counted; CREATE is what a create
# prints, RETURN another .return to print with the others
nfsd_proc_script() {
	printf '%s\n' 'global io, wfh
@define c %( sprintf("%s %s %d %d %d %d", name, client_ip, proto, version, uid, gid) %)
probe nfsd.proc.lookup, nfsd.proc.remove { printf("%s %s %d [%s]\n", @c, filename, filelen, fh) }' "$1" \
		'probe nfsd.proc.rename { printf("%s %s %d %s %d [%s] [%s]\n", @c, filename, filelen, tname, tlen, fh, tfh) }
probe nfsd.proc.commit { printf("%s %d %d %d %d\n", @c, count, size, offset, fh == wfh) }
probe nfsd.proc.read { io[sprintf("%s %d %d %d %s", @c, offset, count, size, units)]++ }
probe nfsd.proc.write { io[sprintf("%s %d %d %d %s %d", @c, offset, count, size, units, stable)]++; wfh = fh }
probe nfsd.proc.lookup.return, nfsd.proc.create.return, '"$2"' nfsd.proc.remove.return,
      nfsd.proc.rename.return, nfsd.proc.commit.return { printf("%s %d %s\n", name, status, retstr) }
probe nfsd.proc.read.return, nfsd.proc.write.return { io[sprintf("%s %d", name, status)]++ }
probe end { foreach (k+ in io) printf("%s x%d\n", k, io[k]) }'
}

@test "tapkit: nfsd.proc.* see the same client's NFSv4 operations, with the request's credential" {
	require_nfs
	mountpoint -q "$NFS_MNT" || { echo "# no NFS mount"; false; }
	local m=$NFS_MNT root="8: 00010001 00000000 00000000 00000000 00000000 00000000"
	# the nfsd.* test's workload under names of the same lengths that the
	# client has not seen (it keeps the names it removed as negative
	# entries); the lookups of an open are OPEN's, no LOOKUP
	run_pid tapkit -c "sh -c 'stat $m/nofil2 2>/dev/null; mkdir $m/dir2; dd if=/dev/zero of=$m/h bs=64k count=4 conv=fsync status=none; mv $m/h $m/i; echo 3 > /proc/sys/vm/drop_caches; cat $m/i > /dev/null; rm $m/i; rmdir $m/dir2'" -e "$(nfsd_proc_script 'probe nfsd.proc.create { printf("%s %s %d [%s] %d\n", @c, filename, filelen, fh, type) }')"
	[ "$status" -eq 0 ] || { show_run; false; }
	# root's request (uid and gid 0) over TCP (6); NF4DIR is 2; the
	# COMMIT's handle is the WRITEs'; a READ and a WRITE of 128 KiB each
	# (stable 0: UNSTABLE4)
	local c="127.0.0.1 6 4 0 0"
	[ "$output" = "nfsd.proc4.lookup $c nofil2 6 [$root]
nfsd.proc4.lookup.return 2 2
nfsd.proc4.create $c dir2 4 [$root] 2
nfsd.proc4.create.return 0 0
nfsd.proc4.commit $c 0 0 0 1
nfsd.proc4.commit.return 0 0
nfsd.proc4.lookup $c i 1 [$root]
nfsd.proc4.lookup.return 2 2
nfsd.proc4.rename $c h 1 i 1 [$root] [$root]
nfsd.proc4.rename.return 0 0
nfsd.proc4.remove $c i 1 [$root]
nfsd.proc4.remove.return 0 0
nfsd.proc4.lookup $c dir2 4 [$root]
nfsd.proc4.lookup.return 0 0
nfsd.proc4.remove $c dir2 4 [$root]
nfsd.proc4.remove.return 0 0
nfsd.proc4.read $c 0 131072 131072 bytes x1
nfsd.proc4.read $c 131072 131072 131072 bytes x1
nfsd.proc4.read.return 0 x2
nfsd.proc4.write $c 0 131072 131072 bytes 0 x1
nfsd.proc4.write $c 131072 131072 131072 bytes 0 x1
nfsd.proc4.write.return 0 x2" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: nfs.fop.* see a process's write, seek, read, mmap, fsync, flushes, releases and open of an NFS file" {
	require_nfs
	mountpoint -q "$NFS_MNT" || { echo "# no NFS mount"; false; }
	local m=$NFS_MNT ino
	# the creating open is NFSv4's atomic open (no open file operation);
	# mmap() duplicates the descriptor, whose close flushes; the second
	# open finds the file cached, and is one
	run_pid tapkit -c "python3 -c 'import os, mmap
fd = os.open(\"$m/c\", os.O_CREAT | os.O_RDWR, 0o644)
print(\"ino=%d\" % os.fstat(fd).st_ino, flush=True)
os.write(fd, b\"x\" * 5000)
os.lseek(fd, 100, 0)
os.read(fd, 300)
mmap.mmap(fd, 4096).close()
os.fsync(fd)
os.close(fd)
os.close(os.open(\"$m/c\", os.O_RDONLY))
os.unlink(\"$m/c\")'" -e 'global a
@define c %( sprintf("%s ino=%d %d %s %d", name, ino, s_id == sprintf("%d:%d", MAJOR(dev), MINOR(dev)), devname, file != 0) %)
probe nfs.fop.open { if (pid() == target()) printf("%s %s %x %d\n", @c, filename, flag, i_size) }
probe nfs.fop.read_iter, nfs.fop.write_iter { if (pid() == target()) printf("%s %d %d %d %s %s %s\n", @c, pos, count, size, units, file_name, parent_name) }
probe nfs.fop.llseek { if (pid() == target()) printf("%s %d %d %s\n", @c, offset, whence, whence_str) }
probe nfs.fop.mmap { if (pid() == target()) printf("%s %d %x\n", @c, vm_end - vm_start, vm_flags & 0xb) }
probe nfs.fop.flush, nfs.fop.release { if (pid() == target()) printf("%s %d\n", @c, mode & 3) }
probe nfs.fop.fsync { if (pid() == target()) printf("%s %d %d %d\n", @c, start, end, datasync) }
probe nfs.fop.open.return, nfs.fop.read_iter.return, nfs.fop.write_iter.return, nfs.fop.llseek.return, nfs.fop.mmap.return,
      nfs.fop.flush.return, nfs.fop.fsync.return, nfs.fop.release.return {
	if (pid() == target()) printf("%s %s\n", name, retstr)
}
probe nfs.fop.aio_read, nfs.fop.aio_write, nfs.fop.aio_read.return, nfs.fop.aio_write.return { if (pid() == target()) a[name]++ }
probe end { foreach (n+ in a) printf("%s x%d\n", n, a[n]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	ino=$(sed -n 's/^ino=//p' <<<"$output")
	[ -n "$ino" ] || { show_run; false; }
	local f="ino=$ino 1 127.0.0.1:/ 1"
	# open's flags are the file's: O_RDONLY and O_LARGEFILE (0x8000)
	[ "$(grep -v '^ino=' <<<"$output")" = "nfs.fop.write_iter $f 0 5000 5000 bytes c /
nfs.fop.write_iter.return 5000
nfs.fop.llseek $f 100 0 SEEK_SET
nfs.fop.llseek.return 100
nfs.fop.read_iter $f 100 300 300 bytes c /
nfs.fop.read_iter.return 300
nfs.fop.mmap $f 4096 b
nfs.fop.mmap.return 0
nfs.fop.flush $f 3
nfs.fop.flush.return 0
nfs.fop.fsync $f 0 9223372036854775807 0
nfs.fop.fsync.return 0
nfs.fop.flush $f 3
nfs.fop.flush.return 0
nfs.fop.release $f 3
nfs.fop.release.return 0
nfs.fop.open $f c 8000 5000
nfs.fop.open.return 0
nfs.fop.flush $f 1
nfs.fop.flush.return 0
nfs.fop.release $f 1
nfs.fop.release.return 0
nfs.fop.aio_read x1
nfs.fop.aio_read.return x1
nfs.fop.aio_write x1
nfs.fop.aio_write.return x1" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: nfs.aop.* see an NFS file's writes into pages, their writeback and a readahead" {
	require_nfs
	mountpoint -q "$NFS_MNT" || { echo "# no NFS mount"; false; }
	local m=$NFS_MNT ino
	# 5000 bytes: page 0 whole, 904 bytes of page 1; fsync() writes back
	# every page (nr_to_write LONG_MAX); the clean pages dropped, pread()
	# reads the file's 2 pages ahead
	run_pid tapkit -c "python3 -c 'import os
fd = os.open(\"$m/p\", os.O_CREAT | os.O_RDWR, 0o644)
print(\"ino=%d\" % os.fstat(fd).st_ino, flush=True)
os.write(fd, b\"x\" * 5000)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.pread(fd, 5000, 0)
os.close(fd)
os.unlink(\"$m/p\")'" -e '
probe nfs.aop.write_begin, nfs.aop.write_end {
	if (pid() == target()) printf("%s ino=%d %d %d %d %d %d %d %s %d\n", name, ino, pos, count, offset, to, page_index, size, units, __page != 0)
}
probe nfs.aop.writepages {
	if (pid() == target()) printf("%s ino=%d %d %d %d %d %d %d %s\n", name, ino, for_kupdate, for_reclaim, nr_to_write, wsize, wpages, size, units)
}
probe nfs.aop.readpages {
	if (pid() == target()) printf("%s ino=%d %d %d %d %d %d %s %d\n", name, ino, page_index, nr_pages, rpages, rsize, size, units, file != 0)
}
probe nfs.aop.write_begin.return, nfs.aop.write_end.return, nfs.aop.writepages.return, nfs.aop.readpages.return {
	if (pid() == target()) printf("%s %s\n", name, retstr)
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	ino=$(sed -n 's/^ino=//p' <<<"$output")
	[ -n "$ino" ] || { show_run; false; }
	[ "$(grep -v '^ino=' <<<"$output")" = "nfs.aop.write_begin ino=$ino 0 4096 0 4096 0 4096 bytes 0
nfs.aop.write_begin.return 0
nfs.aop.write_end ino=$ino 0 4096 0 4096 0 4096 bytes 1
nfs.aop.write_end.return 4096
nfs.aop.write_begin ino=$ino 4096 904 0 904 1 904 bytes 0
nfs.aop.write_begin.return 0
nfs.aop.write_end ino=$ino 4096 904 0 904 1 904 bytes 1
nfs.aop.write_end.return 904
nfs.aop.writepages ino=$ino 0 0 9223372036854775807 131072 32 9223372036854775807 pages
nfs.aop.writepages.return 0
nfs.aop.readpages ino=$ino 0 2 32 131072 2 pages 1
nfs.aop.readpages.return 0" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: nfs.proc.* see the client's NFSv4 requests: a lookup, writes, a commit, a read and removes" {
	require_nfs
	mountpoint -q "$NFS_MNT" || { echo "# no NFS mount"; false; }
	local m=$NFS_MNT
	# 5000 bytes flushed in one WRITE are FILE_SYNC (how 2), no COMMIT;
	# 256 KiB are two UNSTABLE WRITEs (how 0) of the wsize, then a COMMIT
	# of the whole file (count 0); the 5000 bytes are read back as their
	# 2 pages; the RPC's status of a READ or a WRITE is its bytes
	run_pid tapkit -c "python3 -c 'import os
try:
    os.stat(\"$m/nofil3\")
except FileNotFoundError:
    pass
fd = os.open(\"$m/q\", os.O_CREAT | os.O_RDWR, 0o644)
os.write(fd, b\"x\" * 5000)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.pread(fd, 5000, 0)
os.close(fd)
os.unlink(\"$m/q\")
fd = os.open(\"$m/r\", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(fd, b\"y\" * 262144)
os.fsync(fd)
os.close(fd)
os.unlink(\"$m/r\")'" -e 'global w
@define c %( sprintf("%s %s %d %d", name, server_ip, prot, version) %)
probe nfs.proc.lookup, nfs.proc.remove { printf("%s %s %d\n", @c, filename, name_len) }
probe nfs.proc.lookup.return, nfs.proc.remove.return { printf("%s %s\n", name, retstr) }
probe nfs.proc.read_setup { printf("%s %d %d %d %s\n", @c, count, offset, size, units) }
probe nfs.proc.read_done { printf("%s %d %d %d %s\n", @c, status, count, size, units) }
probe nfs.proc.write_setup { w[sprintf("%s %d %d %d %s %d", @c, count, offset, size, units, how)]++ }
probe nfs.proc.commit_setup { w[sprintf("%s %d %d %d %s", @c, count, offset, size, units)]++ }
probe nfs.proc.write_done { w[sprintf("%s %d %d %d %s", @c, status, count, size, units)]++ }
probe nfs.proc.commit_done { w[sprintf("%s %d", @c, status)]++ }
probe end { foreach (k+ in w) printf("%s x%d\n", k, w[k]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	local c="127.0.0.1 6 4"
	[ "$output" = "nfs.proc4.lookup $c nofil3 6
nfs.proc4.lookup.return -2
nfs.proc4.read_setup $c 8192 0 8192 bytes
nfs.proc4.read_done $c 5000 5000 5000 bytes
nfs.proc4.remove $c q 1
nfs.proc4.remove.return 0
nfs.proc4.remove $c r 1
nfs.proc4.remove.return 0
nfs.proc4.commit_done $c 0 x1
nfs.proc4.commit_setup $c 0 0 0 bytes x1
nfs.proc4.write_done $c 131072 131072 131072 bytes x2
nfs.proc4.write_done $c 5000 5000 5000 bytes x1
nfs.proc4.write_setup $c 131072 0 131072 bytes 0 x1
nfs.proc4.write_setup $c 131072 131072 131072 bytes 0 x1
nfs.proc4.write_setup $c 5000 0 5000 bytes 2 x1" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: nfs.proc.* see an open context made and released, a CREATE, a RENAME and the results looked at for a retry" {
	require_nfs
	mountpoint -q "$NFS_MNT" || { echo "# no NFS mount"; false; }
	local m=$NFS_MNT
	# mknod(2) of a regular file is a CREATE (an open with O_CREAT would
	# be an atomic OPEN); nfs4_handle_exception() looks at the results
	# of two requests that retry on some errors: the CREATE's and the
	# GETATTR of the open's close-to-open check, both 0
	run_pid tapkit -c "python3 -c 'import os
os.mknod(\"$m/c1\", 0o100640)
fd = os.open(\"$m/c1\", os.O_RDONLY)
os.close(fd)
os.rename(\"$m/c1\", \"$m/c2\")
os.unlink(\"$m/c2\")'" -e 'global setup_fh, errs
@define c %( sprintf("%s %s %d %d", name, server_ip, prot, version) %)
probe nfs.proc.create { printf("%s %s %d %d %o\n", @c, filename, filelen, flag, mode) }
probe nfs.proc.open, nfs.proc.release { printf("%s %s %o %d\n", @c, filename, flag, mode & 3) }
probe nfs.proc.create.return, nfs.proc.open.return, nfs.proc.release.return { printf("%s %s\n", name, retstr) }
probe nfs.proc.rename_setup { printf("%s %d\n", @c, fh != 0); setup_fh = fh }
probe nfs.proc.rename_done { printf("%s %d %d %d\n", @c, status, fh == setup_fh, timestamp != 0) }
probe nfs.proc.handle_exception { errs[errorcode]++ }
probe end { foreach (e in errs) printf("%s %d x%d\n", "nfs.proc.handle_exception", e, errs[e]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	local c="127.0.0.1 6 4"
	[ "$output" = "nfs.proc4.create $c c1 2 192 100640
nfs.proc4.create.return 0
nfs.proc.open $c c1 100000 1
nfs.proc.open.return 0
nfs.proc.release $c c1 100000 1
nfs.proc.release.return 0
nfs.proc4.rename_setup $c 1
nfs.proc4.rename_done $c 0 1 1
nfs.proc.handle_exception 0 x2" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: nfsd.open and nfsd.close see the server open and close a written file; nfs.aop.set_page_dirty its pages" {
	require_nfs
	mountpoint -q "$NFS_MNT" || { echo "# no NFS mount"; false; }
	local m=$NFS_MNT
	# 5000 bytes are two pages made dirty, then 100 bytes make the first
	# dirty again (the close wrote them back); the server creates the new
	# file opened (no nfsd.open), opens it again for the second OPEN
	# (NFSD_MAY_WRITE, 2), and closes it at each CLOSE, when the last
	# reference goes
	run_pid tapkit -c "python3 -c 'import os
fd = os.open(\"$m/d1\", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(fd, b\"z\" * 5000)
os.close(fd)
fd = os.open(\"$m/d1\", os.O_WRONLY)
os.write(fd, b\"y\" * 100)
os.close(fd)
os.unlink(\"$m/d1\")'" -e 'global pages, rets
probe nfsd.open { printf("%s %s %d %o\n", name, client_ip, access & 3, type) }
probe nfsd.open.return { printf("%s %s\n", name, retstr) }
probe nfsd.close { printf("%s %s\n", name, filename) }
probe nfs.aop.set_page_dirty { pages[page_index, page_flag != 0]++ }
probe nfs.aop.set_page_dirty.return { rets[name, retstr]++ }
probe end {
	foreach ([i, f] in pages+) printf("nfs.aop.set_page_dirty %d %d x%d\n", i, f, pages[i, f])
	foreach ([n, r] in rets+) printf("%s %s x%d\n", n, r, rets[n, r])
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "nfsd.close d1
nfsd.open 127.0.0.1 2 100000
nfsd.open.return 0
nfsd.close d1
nfs.aop.set_page_dirty 1 1 x1
nfs.aop.set_page_dirty 0 1 x2
nfs.aop.set_page_dirty.return 1 x3" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: nfsd.* and nfs.proc.* of a mount over IPv6: client_ip and server_ip as stap prints them" {
	require_nfs
	local m=$BATS_FILE_TMPDIR/nfs/mnt6 a=0000:0000:0000:0000:0000:0000:0000:0001
	mountpoint -q "$m" || { echo "# no NFS mount over ::1"; false; }
	run_pid tapkit -c "stat $m/nofil6" -e '
probe nfsd.lookup { printf("%s %s %s\n", name, filename, client_ip) }
probe nfs.proc.lookup { printf("%s %s %s %d %d\n", name, filename, server_ip, prot, version) }'
	[ "$(grep -v '^stat: ' <<<"$output")" = "nfs.proc4.lookup nofil6 $a 6 4
nfsd.lookup nofil6 $a" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

# nfs3_work FILE: a python script in FILE, run as "FILE DIR N": over NFSv3,
# look up a missing name, create "eN" (O_EXCL) and "fN", write 256 KiB to
# fN with fsync, rename it to gN, read it back with the caches dropped, and
# remove both
nfs3_work() {
	cat >"$1" <<'PY'
import os, sys
d, n = sys.argv[1], sys.argv[2]
try:
    os.stat("%s/nofile%s" % (d, n))
except FileNotFoundError:
    pass
os.close(os.open("%s/e%s" % (d, n), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o640))
fd = os.open("%s/f%s" % (d, n), os.O_CREAT | os.O_WRONLY, 0o640)
os.write(fd, b"x" * 262144)
os.fsync(fd)
os.close(fd)
os.rename("%s/f%s" % (d, n), "%s/g%s" % (d, n))
with open("/proc/sys/vm/drop_caches", "w") as f:
    f.write("3")
with open("%s/g%s" % (d, n), "rb") as f:
    f.read()
os.unlink("%s/g%s" % (d, n))
os.unlink("%s/e%s" % (d, n))
PY
}

@test "tapkit: nfsd.proc.* and nfsd.createv3 see an NFSv3 client's lookup, creates, writes, commit, rename, reads and removes" {
	require_nfs
	mountpoint -q "$NFS_MNT3" || { echo "# no NFSv3 mount"; false; }
	local root="8: 00010001 00000000 00000000 00000000 00000000 00000000"
	nfs3_work "$BATS_TEST_TMPDIR/w.py"
	run_pid tapkit -c "python3 $BATS_TEST_TMPDIR/w.py $NFS_MNT3 1" -e "$(nfsd_proc_script 'probe nfsd.proc.create { printf("%s %s %d [%s]\n", @c, filename, filelen, fh) }
probe nfsd.createv3 { printf("%s %s %d [%s] %d %d %o\n", @c, filename, filelen, fh, createmode, iap_valid, iap_mode) }' \
		nfsd.createv3.return,)"
	[ "$status" -eq 0 ] || { show_run; false; }
	# NFS3ERR_NOENT is 2; an O_EXCL create is EXCLUSIVE (2), its
	# attributes set apart; the other UNCHECKED (0) with the mode
	# (ATTR_MODE, 1); the COMMIT is of the whole file (count 0), with the
	# WRITEs' handle; READs and WRITEs of 128 KiB (stable 0: UNSTABLE)
	local c="127.0.0.1 6 3 0 0"
	[ "$output" = "nfsd.proc3.lookup $c nofile1 7 [$root]
nfsd.proc3.lookup.return 2 2
nfsd.createv3 $c e1 2 [$root] 2 0 0
nfsd.proc3.create $c e1 2 [$root]
nfsd.createv3.return 0 0
nfsd.proc3.create.return 0 0
nfsd.proc3.lookup $c f1 2 [$root]
nfsd.proc3.lookup.return 2 2
nfsd.createv3 $c f1 2 [$root] 0 1 640
nfsd.proc3.create $c f1 2 [$root]
nfsd.createv3.return 0 0
nfsd.proc3.create.return 0 0
nfsd.proc3.commit $c 0 0 0 1
nfsd.proc3.commit.return 0 0
nfsd.proc3.rename $c f1 2 g1 2 [$root] [$root]
nfsd.proc3.rename.return 0 0
nfsd.proc3.lookup $c g1 2 [$root]
nfsd.proc3.lookup.return 0 0
nfsd.proc3.remove $c g1 2 [$root]
nfsd.proc3.remove.return 0 0
nfsd.proc3.lookup $c e1 2 [$root]
nfsd.proc3.lookup.return 0 0
nfsd.proc3.remove $c e1 2 [$root]
nfsd.proc3.remove.return 0 0
nfsd.proc3.read $c 0 131072 131072 bytes x1
nfsd.proc3.read $c 131072 131072 131072 bytes x1
nfsd.proc3.read.return 0 x2
nfsd.proc3.write $c 0 131072 131072 bytes 0 x1
nfsd.proc3.write $c 131072 131072 131072 bytes 0 x1
nfsd.proc3.write.return 0 x2" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: nfs.proc.* see the client's NFSv3 requests: lookups, creates, writes, a commit, a rename, reads and removes" {
	require_nfs
	mountpoint -q "$NFS_MNT3" || { echo "# no NFSv3 mount"; false; }
	nfs3_work "$BATS_TEST_TMPDIR/w.py"
	run_pid tapkit -c "python3 $BATS_TEST_TMPDIR/w.py $NFS_MNT3 2" -e 'global w
@define c %( sprintf("%s %s %d %d", name, server_ip, prot, version) %)
probe nfs.proc.lookup, nfs.proc.remove { printf("%s %s %d\n", @c, filename, name_len) }
probe nfs.proc.create { printf("%s %s %d %d %o\n", @c, filename, filelen, flag, mode) }
probe nfs.proc.lookup.return, nfs.proc.remove.return, nfs.proc.create.return { printf("%s %s\n", name, retstr) }
probe nfs.proc.rename_setup { printf("%s %d\n", @c, fh != 0) }
probe nfs.proc.rename_done { printf("%s %d %d\n", @c, status, timestamp) }
probe nfs.proc.read_setup { w[sprintf("%s %d %d %d %s", @c, count, offset, size, units)]++ }
probe nfs.proc.read_done { w[sprintf("%s %d %d %d %s", @c, status, count, size, units)]++ }
probe nfs.proc.write_setup { w[sprintf("%s %d %d %d %s %d", @c, count, offset, size, units, how)]++ }
probe nfs.proc.commit_setup { w[sprintf("%s %d %d %d %s", @c, count, offset, size, units)]++ }
probe nfs.proc.write_done { w[sprintf("%s %d %d %d %s", @c, status, count, size, units)]++ }
probe nfs.proc.commit_done { w[sprintf("%s %d", @c, status)]++ }
probe end { foreach (k+ in w) printf("%s x%d\n", k, w[k]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# an O_EXCL create's flags are O_CREAT|O_EXCL (192), the other's
	# O_CREAT (64); NFSv3 has no lease: the rename's timestamp is 0
	local c="127.0.0.1 6 3"
	[ "$output" = "nfs.proc3.lookup $c nofile2 7
nfs.proc3.lookup.return -2
nfs.proc3.create $c e2 2 192 100640
nfs.proc3.create.return 0
nfs.proc3.lookup $c f2 2
nfs.proc3.lookup.return -2
nfs.proc3.create $c f2 2 64 100640
nfs.proc3.create.return 0
nfs.proc3.rename_setup $c 1
nfs.proc3.rename_done $c 0 0
nfs.proc3.lookup $c g2 2
nfs.proc3.lookup.return 0
nfs.proc3.remove $c g2 2
nfs.proc3.remove.return 0
nfs.proc3.lookup $c e2 2
nfs.proc3.lookup.return 0
nfs.proc3.remove $c e2 2
nfs.proc3.remove.return 0
nfs.proc3.commit_done $c 0 x1
nfs.proc3.commit_setup $c 0 0 0 bytes x1
nfs.proc3.read_done $c 131072 131072 131072 bytes x2
nfs.proc3.read_setup $c 131072 0 131072 bytes x1
nfs.proc3.read_setup $c 131072 131072 131072 bytes x1
nfs.proc3.write_done $c 131072 131072 131072 bytes x2
nfs.proc3.write_setup $c 131072 0 131072 bytes 0 x1
nfs.proc3.write_setup $c 131072 131072 131072 bytes 0 x1" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: nfs.proc2.* resolve every variable in the nfsv2 module's BTF (the kernel's server has no NFSv2 to mount)" {
	require_nfs
	[ -e /sys/module/nfsv2/initstate ] || skip "requires: the nfsv2 module"
	run --separate-stderr tapkit -p2 -e 'probe nfs.proc2.lookup, nfs.proc2.remove { printf("%s %s %d %d %s %d\n", name, server_ip, prot, version, filename, name_len) }
probe nfs.proc2.create { printf("%s %d %d %o\n", filename, filelen, flag, mode) }
probe nfs.proc2.read_setup, nfs.proc2.write_setup { printf("%d %d %d %s\n", count, offset, size, units) }
probe nfs.proc2.write_setup { printf("%d\n", how) }
probe nfs.proc2.read_done, nfs.proc2.write_done { printf("%d %d %d %s\n", status, count, size, units) }
probe nfs.proc2.rename_setup { printf("%d\n", fh) }
probe nfs.proc2.rename_done { printf("%d %d %d\n", fh, status, timestamp) }
probe nfs.proc2.lookup.return, nfs.proc2.remove.return, nfs.proc2.create.return { println(retstr) }'
	[ "$status" -eq 0 ] && [ -z "$stderr" ] || { show_run; false; }
	local f
	for f in nfs_proc_lookup nfs_proc_remove nfs_proc_create nfs_proc_read_setup nfs_proc_write_setup \
		nfs_read_done nfs_write_done nfs_proc_rename_setup nfs_proc_rename_done; do
		grep -qxF "  # mechanism: kprobe at nfsv2:$f from our tracefs instance" <<<"$output" ||
			{ show_run; false; }
	done
	for f in nfs_proc_lookup nfs_proc_remove nfs_proc_create; do
		grep -qxF "  # mechanism: kretprobe at nfsv2:$f from our tracefs instance" <<<"$output" ||
			{ show_run; false; }
	done
	# each variable the handlers read is a local of its probe
	[ "$(sed -n '/^# probes/,$p' <<<"$output" | grep -c '^  [a-z_]*:')" -eq $((2 * 6 + 4 + 2 * 4 + 1 + 2 * 4 + 1 + 3 + 3)) ] ||
		{ show_run; false; }
}

@test "tapkit: nfs.aop.readpage, writepage and release_page resolve every variable in the nfs module's BTF" {
	require_nfs
	run --separate-stderr tapkit -p2 -e 'probe nfs.aop.readpage { printf("%d %d %d %d %d %d %d %s\n", __page, dev, ino, file, page_index, rsize, size, units) }
probe nfs.aop.writepage { printf("%d %d %d %d %d %d %d %d %d %s\n", __page, dev, ino, page_index, for_kupdate, for_reclaim, i_size, wsize, size, units) }
probe nfs.aop.release_page { printf("%d %d %d %d %d %s\n", __page, dev, ino, page_index, size, units) }
probe nfs.aop.readpage.return, nfs.aop.writepage.return, nfs.aop.release_page.return { println(retstr) }'
	[ "$status" -eq 0 ] && [ -z "$stderr" ] || { show_run; false; }
	local f
	for f in nfs_read_folio nfs_writepage nfs_release_folio; do
		grep -qxF "  # mechanism: kprobe at nfs:$f from our tracefs instance" <<<"$output" &&
			grep -qxF "  # mechanism: kretprobe at nfs:$f from our tracefs instance" <<<"$output" ||
			{ show_run; false; }
	done
	# each variable the handlers read is a local of its probe
	[ "$(grep -c '^  [a-z_]*:' <<<"$output")" -eq $((8 + 10 + 6 + 3)) ] || { show_run; false; }
}

@test "tapkit: a module's functions when the module is not loaded: one error naming it" {
	run --separate-stderr tapkit -e 'probe module("tapkit_nosuch").function("f") { }'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"error: module 'tapkit_nosuch' is not loaded (no /sys/module/tapkit_nosuch/initstate): module(\"tapkit_nosuch\").function(\"f\") needs it"* ]] ||
		{ show_run; false; }
	# where the kernel has no NFS client loaded, nfs.proc.* (each
	# version's request, where its module is) names each module
	if [ ! -e /sys/module/nfsv2/initstate ] && [ ! -e /sys/module/nfsv3/initstate ] &&
		[ ! -e /sys/module/nfsv4/initstate ]; then
		run --separate-stderr tapkit -e 'probe nfs.proc.lookup { println(filename) }'
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"error: probe point mismatch: no match for 'nfs.proc.lookup', because none of its points matched:"* ]] ||
			{ show_run; false; }
		local v
		for v in 2 3 4; do
			[[ "$stderr" == *"error: module 'nfsv$v' is not loaded (no /sys/module/nfsv$v/initstate)"* ]] ||
				{ show_run; false; }
		done
	fi
	# where the kernel has no NFS server loaded, nfsd.* says so
	[ -e /sys/module/nfsd/initstate ] && return 0
	run --separate-stderr tapkit -e 'probe nfsd.read { println(count) }'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"error: module 'nfsd' is not loaded (no /sys/module/nfsd/initstate): module(\"nfsd\").function(\"nfsd_splice_read\") needs it"* ]] ||
		{ show_run; false; }
}
