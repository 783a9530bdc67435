package artefact

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/retrywise/retrywise/internal/docgen"
	"github.com/retrywise/retrywise/internal/explain/logsample"
	// The tool families are registered as in the program: the docs list
	// them (--tool), and the step kinds' flags name them.
	_ "github.com/retrywise/retrywise/internal/failure/tools"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/jobs/jobschema"
	"github.com/retrywise/retrywise/internal/report/reportschema"
)

// Command is the one command that rewrites every generated file.
const Command = "go generate ./..."

// File is one generated file: its path relative to the repository's root
// and the content its sources generate.
type File struct {
	Path    string
	Content []byte
}

// Files renders every generated file of the repository at root. A docs
// page with generated regions is the page as it is on disk with those
// regions replaced, so its hand-written text is kept.
func Files(root string) ([]File, error) {
	var files []File
	add := func(path string, content []byte) { files = append(files, File{path, content}) }

	add("action.yml", []byte(actionYAML()))
	add("host/action.yml", []byte(hostActionYAML()))
	job, err := jobschema.Schema(jobs.Steps())
	if err != nil {
		return nil, fmt.Errorf("docs/job.schema.json: %w", err)
	}
	add("docs/job.schema.json", job)
	rep, err := reportschema.Schema()
	if err != nil {
		return nil, fmt.Errorf("docs/report.schema.json: %w", err)
	}
	add("docs/report.schema.json", rep)
	codes, err := builtinCodes(root)
	if err != nil {
		return nil, err
	}
	add(builtinCodesPath, codes)
	sample, err := logsample.Archive(filepath.Join(root, logsample.Dir))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", logsample.Path, err)
	}
	add(logsample.Path, sample)

	pages, err := docRegions()
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		old, err := os.ReadFile(filepath.Join(root, p.path))
		if err != nil {
			return nil, err
		}
		text, err := docgen.Replace(string(old), p.regions)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.path, err)
		}
		add(p.path, []byte(text))
	}
	return files, nil
}

// Stale returns the paths of the generated files at root that differ from
// what their sources generate.
func Stale(root string) ([]string, error) {
	files, err := Files(root)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join(root, f.Path))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if !bytes.Equal(old, f.Content) {
			stale = append(stale, f.Path)
		}
	}
	return stale, nil
}

// Write brings every generated file at root up to date, writing only those
// that differ, and returns the paths it wrote.
func Write(root string) ([]string, error) {
	files, err := Files(root)
	if err != nil {
		return nil, err
	}
	var wrote []string
	for _, f := range files {
		path := filepath.Join(root, f.Path)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, f.Content) {
			continue
		}
		if err := os.WriteFile(path, f.Content, 0o644); err != nil {
			return wrote, err
		}
		wrote = append(wrote, f.Path)
	}
	return wrote, nil
}

// Root returns the repository's root: the nearest folder at or above dir
// whose go.mod declares the retrywise module.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/retrywise/retrywise\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of github.com/retrywise/retrywise at or above the working directory")
		}
		dir = parent
	}
}
