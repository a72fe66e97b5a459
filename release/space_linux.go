package release

import "syscall"

// freeSpace is the space of dir's file system available to this process, when statfs tells it.
var freeSpace = func(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * st.Bsize, true
}
