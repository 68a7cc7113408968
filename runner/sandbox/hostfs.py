"""The host folders an agent writes, as both backends guard them: ownership, size, and the state at
the deadline.

  _lchown_tree    hand a folder to the agent's uid for the phase, and back afterwards
  tree_usage      what a folder holds (the workspace watchdog: its total size and entry count); a
                  folder it cannot read even after giving its owner (us) rwx back counts as over
                  the limit: an agent's `chmod 000` does not hide what it writes
  DiskWatch       what the tree walk cannot see: files the agent deleted but holds open on the
                  workspace's filesystem, and that filesystem's free space
  copy_tree       the one way the host copies an agent's folder: no path component is opened by
                  name through a link (every open is O_NOFOLLOW relative to its folder's fd, and
                  what is opened must be the file lstat named), links are copied as links, anything
                  else that is not a regular file or folder is skipped, set-id bits are dropped
  DeadlineFreeze  the workspace as it was when the budget ended: an agent that ignores SIGTERM and
                  edits during the grace that follows gets those edits undone before anything reads
                  the workspace (docs/agents.md, "the budget")
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC   # NONBLOCK: a fifo never blocks us
UNREADABLE = 1 << 62   # tree_usage's size of a tree with a folder it cannot read: over any limit


def _lchown_tree(root: Path, uid: int, gid: int) -> None:
    """chown without following symlinks (an agent's symlink to /etc/shadow changes only the link)."""
    try:
        os.lchown(root, uid, gid)
    except FileNotFoundError:
        return
    for name, fd, _ in _entries(root):
        try:
            os.chown(name, uid, gid, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            pass


def _grant(name: str, dir_fd: int | None, bits: int) -> bool:
    """Add `bits` to the mode of `name` (relative to dir_fd) when it is ours and no link: through an
    O_PATH handle, so nothing is changed through a link. True when it changed."""
    try:
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if stat.S_ISLNK(st.st_mode) or st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & bits == bits:
            return False
        os.chmod(f"/proc/self/fd/{fd}", stat.S_IMODE(st.st_mode) | bits)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _open(name: str, dir_fd: int | None, flags: int, bits: int) -> int:
    """os.open(name, flags) relative to dir_fd; on EACCES the owner's `bits` are given back first
    (a non-root runner's agent is the runner's uid outside, and its `chmod 000` is undone here)."""
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except PermissionError:
        if not _grant(name, dir_fd, bits):
            raise
        return os.open(name, flags, dir_fd=dir_fd)


def _same(fd: int, st: os.stat_result) -> os.stat_result:
    """The fstat of an opened entry, which must be the one lstat named (no swap between the two)."""
    fst = os.fstat(fd)
    if (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino) or stat.S_IFMT(fst.st_mode) != stat.S_IFMT(st.st_mode):
        raise OSError(errno.ESTALE, "replaced while it was read")
    return fst


def _mode(st: os.stat_result) -> int:
    return stat.S_IMODE(st.st_mode) & 0o777     # never set-uid, set-gid or sticky


def tree_usage(root: Path, stop_at_files: int) -> tuple[int, int]:
    """(bytes, entries) under root: the larger of apparent size and allocated blocks per file. A
    folder that cannot be read (after giving its owner rwx back where that is us) makes the size
    UNREADABLE, over any limit."""
    total, count = 0, 0
    try:
        top = _open(os.fspath(root), None, _DIR, stat.S_IRWXU)
    except FileNotFoundError:
        return 0, 0
    except OSError:
        return UNREADABLE, 0
    stack = [top]
    try:
        while stack:
            fd = stack.pop()
            try:
                names = os.listdir(fd)
                for name in names:
                    count += 1
                    if count > stop_at_files:
                        return total, count
                    try:
                        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    except OSError:        # a folder listed but not searchable (chmod 400), as root would not
                        return UNREADABLE, count
                    if stat.S_ISDIR(st.st_mode):
                        try:
                            child = _open(name, fd, _DIR, stat.S_IRWXU)
                        except (FileNotFoundError, NotADirectoryError):
                            continue            # gone, or swapped for a file, since the listing
                        except OSError as exc:
                            if exc.errno == errno.ELOOP:   # swapped for a link since the listing
                                continue
                            return UNREADABLE, count
                        stack.append(child)
                    else:
                        total += max(st.st_size, st.st_blocks * 512)
            finally:
                os.close(fd)
    finally:
        for fd in stack:
            os.close(fd)
    return total, count


def pids_in_namespace_of(pid: int) -> list[int]:
    """Every process in the pid namespace of `pid` (as the host's /proc shows it)."""
    try:
        ns = os.stat(f"/proc/{pid}/ns/pid").st_ino
    except OSError:
        return []
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}/ns/pid").st_ino == ns:
                    found.append(int(entry))
            except OSError:
                continue
    return found


def deleted_open_usage(pids, dev: int) -> int:
    """Bytes held by files on device `dev` that were deleted but are still open in one of `pids`
    (each file once, the larger of its size and its blocks)."""
    seen: dict[tuple[int, int], int] = {}
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            path = f"/proc/{pid}/fd/{fd}"
            try:
                if not os.readlink(path).endswith(" (deleted)"):
                    continue
                st = os.stat(path)
            except OSError:
                continue
            if st.st_dev == dev and stat.S_ISREG(st.st_mode):
                seen[(st.st_dev, st.st_ino)] = max(st.st_size, st.st_blocks * 512)
    return sum(seen.values())


class DiskWatch:
    """What the workspace watchdog adds to tree_usage: deleted-but-open files of the exec's processes
    on the workspace's filesystem count against the workspace's cap, and the exec is stopped before
    that filesystem is full (free space under `reserve`, or under half of what was free at the start
    where that is less)."""

    RESERVE = 1 << 30

    def __init__(self, workdir: Path, workspace_max: int, workspace_files: int,
                 names: tuple[str, str] = ("the workspace", "the agent")):
        self.workdir = Path(workdir)
        self.folder, self.owner = names      # how its messages name the folder and who writes there
        self.workspace_max, self.workspace_files = workspace_max, workspace_files
        self.dev = os.stat(self.workdir).st_dev
        self.reserve = min(self.RESERVE, self._free() // 2)

    def _free(self) -> int:
        st = os.statvfs(self.workdir)
        return st.f_bavail * st.f_frsize

    def check(self, pids) -> str | None:
        """Why the exec must be killed now, or None."""
        used, count = tree_usage(self.workdir, self.workspace_files)
        hidden = deleted_open_usage(pids, self.dev) if used <= self.workspace_max else 0
        if used == UNREADABLE:
            return f"{self.folder} holds a folder the watchdog cannot read (limit {self.workspace_max} bytes)"
        if used + hidden > self.workspace_max or count > self.workspace_files:
            return (f"{self.folder} exceeded its limit ({used} bytes in its tree, {hidden} in deleted files "
                    f"still open, {count} entries; limits {self.workspace_max} bytes, {self.workspace_files} entries)")
        free = self._free()
        if free < self.reserve:
            return f"{self.folder}'s filesystem is nearly full ({free} bytes free; {self.owner} may leave {self.reserve})"
        return None


def copy_tree(src: Path, dst: Path) -> list[str]:
    """Copy folder `src` into folder `dst` (made if missing; what is there is replaced) without
    following a link anywhere below src: returns what was not copied, one line each."""
    problems: list[str] = []
    sfd = _open(os.fspath(src), None, _DIR, stat.S_IRWXU)
    try:
        os.makedirs(dst, exist_ok=True)
        dfd = os.open(os.fspath(dst), _DIR)
    except BaseException:
        os.close(sfd)
        raise
    stack = [(sfd, dfd, None, str(src))]
    names_of = {sfd: iter(os.listdir(sfd))}
    try:
        while stack:
            sfd, dfd, finish, where = stack[-1]
            name = next(names_of[sfd], None)
            if name is None:
                stack.pop()
                del names_of[sfd]
                try:
                    if finish is not None:
                        os.fchmod(dfd, finish[0])
                        os.utime(dfd, ns=finish[1])
                finally:
                    os.close(sfd)
                    os.close(dfd)
                continue
            try:
                st = os.stat(name, dir_fd=sfd, follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    text = os.readlink(name, dir_fd=sfd)
                    remove_tree(name, dir_fd=dfd)
                    os.symlink(text, name, dir_fd=dfd)
                elif stat.S_ISDIR(st.st_mode):
                    child = _open(name, sfd, _DIR, stat.S_IRWXU)
                    try:
                        _same(child, st)
                        names = iter(os.listdir(child))
                        try:
                            os.mkdir(name, 0o700, dir_fd=dfd)
                        except FileExistsError:
                            if not stat.S_ISDIR(os.stat(name, dir_fd=dfd, follow_symlinks=False).st_mode):
                                remove_tree(name, dir_fd=dfd)
                                os.mkdir(name, 0o700, dir_fd=dfd)
                        cdfd = os.open(name, _DIR, dir_fd=dfd)
                    except BaseException:
                        os.close(child)
                        raise
                    names_of[child] = names
                    stack.append((child, cdfd, (_mode(st), (st.st_atime_ns, st.st_mtime_ns)), f"{where}/{name}"))
                elif stat.S_ISREG(st.st_mode):
                    _copy_file(name, sfd, dfd, st)
                else:
                    problems.append(f"{where}/{name}: not a file, folder or link (skipped)")
            except OSError as exc:
                problems.append(f"{where}/{name}: {exc.strerror or exc}")
    finally:
        for sfd, dfd, _finish, _where in stack:
            os.close(sfd)
            os.close(dfd)
    return problems


MAX_OPEN_DEPTH = 128      # remove_tree's open folders at most; a folder deeper is first moved up


def remove_tree(path, dir_fd: int | None = None, ignore_errors: bool = False) -> None:
    """Remove `path` (relative to dir_fd) and, a folder, everything in it; never through a link, with
    no recursion and at most MAX_OPEN_DEPTH folders open however deep the tree: a folder that deep
    below `path` is moved up into `path` itself first, so no descent or path grows with the depth.
    Why: Python 3.11's shutil.rmtree and os.walk recurse once a level, and a folder an agent or a
    candidate nests 1,500 deep raised RecursionError in the harness (red team, session 27: a failing
    candidate's evaluation an infra_error, its run no longer resumable). Folders the owner (us)
    cannot enter are given rwx back first (_open). `ignore_errors`: what cannot be removed stays."""
    name = os.fspath(path)
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(name, dir_fd=dir_fd)
            return
        _grant(name, dir_fd, stat.S_IRWXU)
        top = _open(name, dir_fd, _DIR, stat.S_IRWXU)
    except FileNotFoundError:
        return
    except OSError:
        if ignore_errors:
            return
        raise
    moved, token = 0, os.urandom(4).hex()
    levels = [(top, [], None)]                       # (fd, names left, its name in the level above)
    try:
        levels[0][1].extend(os.listdir(top))
        while levels:
            fd, names, own = levels[-1]
            if not names:
                levels.pop()
                os.close(fd)
                try:
                    if levels:
                        os.rmdir(own, dir_fd=levels[-1][0])
                    else:
                        os.rmdir(name, dir_fd=dir_fd)
                except FileNotFoundError:
                    pass
                except OSError:
                    if not ignore_errors:
                        raise
                continue
            entry = names.pop()
            try:
                st = os.stat(entry, dir_fd=fd, follow_symlinks=False)
                if not stat.S_ISDIR(st.st_mode):
                    os.unlink(entry, dir_fd=fd)
                elif len(levels) >= MAX_OPEN_DEPTH:    # up into the top folder, its walk begun anew there
                    moved += 1
                    up = f".gauntlet-removing-{token}-{moved}"
                    os.rename(entry, up, src_dir_fd=fd, dst_dir_fd=top)
                    levels[0][1].append(up)
                else:
                    _grant(entry, fd, stat.S_IRWXU)        # entered, listed and emptied: rwx (ours only)
                    levels.append((_open(entry, fd, _DIR, stat.S_IRWXU), [], entry))
                    levels[-1][1].extend(os.listdir(levels[-1][0]))     # closed by `finally` if this fails
            except FileNotFoundError:
                continue
            except OSError:
                if not ignore_errors:
                    raise
    finally:
        for fd, _names, _own in levels:
            os.close(fd)


def _copy_file(name: str, sfd: int, dfd: int, st: os.stat_result) -> None:
    _copy_file_as(name, sfd, name, dfd, st)


def copy_path(src: Path, dst: Path) -> list[str]:
    """copy_tree for a folder; a regular file (never through a link at its last component) or a
    link (copied as a link) otherwise."""
    st = os.lstat(src)
    if stat.S_ISDIR(st.st_mode):
        return copy_tree(src, dst)
    Path(dst).parent.mkdir(parents=True, exist_ok=True)
    pfd = os.open(os.fspath(Path(src).parent), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    dfd = os.open(os.fspath(Path(dst).parent), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if stat.S_ISLNK(st.st_mode):
            remove_tree(Path(dst).name, dir_fd=dfd)
            os.symlink(os.readlink(src), Path(dst).name, dir_fd=dfd)
        elif stat.S_ISREG(st.st_mode):
            _copy_file_as(Path(src).name, pfd, Path(dst).name, dfd, st)
        else:
            return [f"{src}: not a file, folder or link (skipped)"]
    finally:
        os.close(pfd)
        os.close(dfd)
    return []


def _copy_file_as(name: str, sfd: int, out_name: str, dfd: int, st: os.stat_result) -> None:
    fd = _open(name, sfd, _FILE, stat.S_IRUSR)
    try:
        fst = _same(fd, st)
        remove_tree(out_name, dir_fd=dfd)
        out = os.open(out_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                      dir_fd=dfd)
        with open(out, "wb") as fo:
            while chunk := os.read(fd, 1 << 20):
                fo.write(chunk)
            fo.flush()
            os.fchmod(out, _mode(fst))
            os.utime(out, ns=(fst.st_atime_ns, fst.st_mtime_ns))
    finally:
        os.close(fd)


def _entries(root: Path):
    """(name, its folder's fd, lstat) of every entry under root, never through a link; a folder is
    opened after the caller has seen it (make_removable gives it rwx first). What cannot be read is
    passed over."""
    try:
        top = os.open(os.fspath(root), _DIR)
    except OSError:
        return
    stack = [top]
    try:
        while stack:
            fd = stack.pop()
            try:
                for name in os.listdir(fd):
                    try:
                        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                        yield name, fd, st
                        if stat.S_ISDIR(st.st_mode):
                            stack.append(os.open(name, _DIR, dir_fd=fd))
                    except OSError:
                        continue
            finally:
                os.close(fd)
    finally:
        for fd in stack:
            os.close(fd)


def make_removable(root: Path) -> None:
    """Give the owner (us) rwx back on every folder under root that lacks it, never through a link,
    so that a non-root runner can read, empty and remove what its agent `chmod`ed away. As root this
    changes nothing (root needs no permission)."""
    if os.geteuid() == 0:
        return
    _grant(os.fspath(root), None, stat.S_IRWXU)
    for name, fd, st in _entries(root):
        if stat.S_ISDIR(st.st_mode):
            _grant(name, fd, stat.S_IRWXU)


class DeadlineFreeze:
    """A copy of the workdir taken the moment the budget ends (the caller freezes or kills every
    process of the agent around `take`, so the copy is of one instant and nothing of the agent runs
    while the host reads its files), put back by `restore` once every process is dead. The copy
    lives beside the workdir, never inside it, so the agent cannot reach it; it is taken by
    copy_tree, so a link the agent swapped in is copied as a link, never followed."""

    def __init__(self, workdir: Path):
        self.workdir = Path(workdir)
        self.copy: Path | None = None
        self.problems: list[str] = []

    def take(self) -> None:
        self.copy = Path(tempfile.mkdtemp(dir=self.workdir.parent, prefix=f".{self.workdir.name}-at-deadline-"))
        try:
            self.problems = copy_tree(self.workdir, self.copy)[:5]
        except OSError as exc:   # the workdir itself unreadable: nothing of it is kept
            self.problems = [f"{self.workdir}: {exc.strerror or exc}"]

    def restore(self) -> str | None:
        """Put the workdir back as it was at the deadline; a note for the agent's log, or None."""
        if self.copy is None:
            return None
        make_removable(self.workdir)
        wfd = os.open(os.fspath(self.workdir), _DIR)
        try:
            for name in os.listdir(wfd):
                remove_tree(name, dir_fd=wfd)
        finally:
            os.close(wfd)
        self.problems += copy_tree(self.copy, self.workdir)[:5]
        remove_tree(self.copy, ignore_errors=True)
        self.copy = None
        note = "gauntlet: the workspace is kept as it was when the budget ended; later edits are discarded"
        if self.problems:
            note += f" (not copied at the deadline: {'; '.join(self.problems)})"
        return note


MAX_DEPTH = 64       # folders an agent's workspace keeps nested; a kernel task needs a handful


def prune_deep(root: Path, max_depth: int = MAX_DEPTH) -> list[str]:
    """Remove every folder nested more than `max_depth` levels below root (remove_tree), never
    through a link; the relative paths of the folders removed (their first `max_depth` levels).
    Run on an agent's workspace once nothing of the agent runs, before anything walks it: every
    later walk (the record, the diff, the candidate's export, the permission and set-id passes) then
    meets a tree of bounded depth, whatever Python's recursion does."""
    removed: list[str] = []
    try:
        top = os.open(os.fspath(root), _DIR)
    except OSError:
        return removed
    stack = [(top, "", 0)]
    try:
        while stack:
            fd, where, depth = stack.pop()
            try:
                for name in os.listdir(fd):
                    try:
                        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                        if not stat.S_ISDIR(st.st_mode):
                            continue
                        if depth + 1 > max_depth:
                            remove_tree(name, dir_fd=fd, ignore_errors=True)
                            removed.append(f"{where}{name}")
                        else:
                            stack.append((os.open(name, _DIR, dir_fd=fd), f"{where}{name}/", depth + 1))
                    except OSError:
                        continue
            finally:
                os.close(fd)
    finally:
        for fd, _where, _depth in stack:
            os.close(fd)
    return removed


def drop_setid(root: Path) -> None:
    """Clear set-uid and set-gid bits under root (never through a link): nothing an agent leaves
    runs as its uid, or as whoever owns its files afterwards."""
    for name, fd, st in _entries(root):
        if stat.S_ISLNK(st.st_mode) or not st.st_mode & (stat.S_ISUID | stat.S_ISGID):
            continue
        try:
            h = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
        except OSError:
            continue
        try:
            if not stat.S_ISLNK(os.fstat(h).st_mode):
                os.chmod(f"/proc/self/fd/{h}", stat.S_IMODE(st.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))
        except OSError:
            pass
        finally:
            os.close(h)
