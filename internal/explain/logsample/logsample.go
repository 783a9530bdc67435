// Package logsample builds the sample log archive of explain --log
// (testdata/explain/logs_sample.zip) from its text files, as a run's page
// serves one: a whole log "N_job.txt" per job and a folder "job/" of
// "N_step.txt" logs. Generator and tests only, not in the binary.
package logsample

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Dir and Path are the sample's text files and its archive, relative to
// the repository's root.
const (
	Dir  = "testdata/explain/logs_sample"
	Path = "testdata/explain/logs_sample.zip"
)

// modified is every entry's time: the archive is the same bytes whenever
// it is built.
var modified = time.Date(2026, 12, 1, 9, 14, 10, 0, time.UTC)

// Archive zips the files under dir, in their paths' order, stored (not
// compressed: the bytes do not depend on the Go release's compressor).
func Archive(dir string) ([]byte, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, n := range names {
		text, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			return nil, err
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store, Modified: modified})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(text); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
