package libraries

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Ruby libraries: the gems Gemfile.lock pins (its GEM sections' specs), as
// installed under a gem folder's gems/<name>-<version>. Gem folders are
// found without running ruby where they are cheap to find; `gem env
// gempath` is asked, with a timeout, only when a gem is found nowhere else.

// gemEnvTimeout bounds `gem env gempath`.
const gemEnvTimeout = 5 * time.Second

// lockedGems lists the gems of a Gemfile.lock's GEM sections as name,
// version (a platform suffix, as in nokogiri (1.15.4-x86_64-linux), kept:
// it is part of the installed folder's name).
func lockedGems(lock string) ([][2]string, error) {
	data, err := readSmall(lock)
	if err != nil {
		return nil, err
	}
	var out [][2]string
	section := ""
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := sc.Text()
		if line != "" && line[0] != ' ' {
			section = strings.TrimSpace(line)
			continue
		}
		// A spec is indented four spaces; its own dependencies six.
		if section != "GEM" || !strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "     ") {
			continue
		}
		name, rest, ok := strings.Cut(strings.TrimSpace(line), " (")
		if version, found := strings.CutSuffix(rest, ")"); ok && found && name != "" {
			out = append(out, [2]string{name, version})
		}
	}
	return out, nil
}

func (f *Found) discoverGems(ctx context.Context, root string, c Caches) {
	lock := filepath.Join(root, "Gemfile.lock")
	gems, err := lockedGems(lock)
	if err != nil {
		if !os.IsNotExist(err) {
			f.Skipped = append(f.Skipped, Skip{Library: lock, Reason: BadBuildFile, Detail: err.Error()})
		}
		return
	}
	dirs := gemDirs(root, c)
	asked := false
	for _, g := range gems {
		lib, skip := installedGem(dirs, g[0], g[1])
		if skip != nil && skip.Reason == NotInstalled && !asked && len(c.GemDirs) == 0 && !c.NoSystemGems {
			asked = true
			dirs = append(dirs, gemEnvPath(ctx, root)...)
			lib, skip = installedGem(dirs, g[0], g[1])
		}
		f.add(lib, skip)
	}
}

// gemDirs lists the gem folders to look in: the override, else bundler's
// vendor/bundle, GEM_HOME, GEM_PATH, the user's gem folders and the
// system's.
func gemDirs(root string, c Caches) []string {
	if len(c.GemDirs) > 0 {
		return c.GemDirs
	}
	var out []string
	glob := func(pattern string) {
		m, _ := filepath.Glob(pattern)
		out = append(out, m...)
	}
	glob(filepath.Join(root, "vendor", "bundle", "ruby", "*"))
	if h := os.Getenv("GEM_HOME"); h != "" {
		out = append(out, h)
	}
	out = append(out, filepath.SplitList(os.Getenv("GEM_PATH"))...)
	if home, err := os.UserHomeDir(); err == nil {
		glob(filepath.Join(home, ".gem", "ruby", "*"))
		glob(filepath.Join(home, ".local", "share", "gem", "ruby", "*"))
	}
	if !c.NoSystemGems {
		glob("/var/lib/gems/*")
		glob("/usr/lib/ruby/gems/*")
		glob("/usr/local/lib/ruby/gems/*")
		out = append(out, "/usr/share/rubygems-integration/all")
	}
	return out
}

// gemEnvPath asks rubygems for its gem path, or nothing if it cannot.
func gemEnvPath(ctx context.Context, root string) []string {
	if _, err := exec.LookPath("gem"); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, gemEnvTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "gem", "env", "gempath")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	return filepath.SplitList(strings.TrimSpace(string(out)))
}

// installedGem finds a gem version's folder.
func installedGem(dirs []string, name, version string) (Library, *Skip) {
	id := name + "@" + version
	if strings.ContainsAny(name+version, `/\`) || strings.Contains(name+version, "..") {
		return Library{}, &Skip{Library: id, Reason: BadBuildFile, Detail: "not a gem name and version"}
	}
	for _, d := range dirs {
		dir := filepath.Join(d, "gems", name+"-"+version)
		if _, err := os.Lstat(dir); err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return Library{}, &Skip{Library: id, Reason: LinkLoop, Detail: err.Error()}
		}
		return Library{Lang: "ruby", Module: name, Version: version, Dir: real}, nil
	}
	return Library{}, &Skip{Library: id, Reason: NotInstalled, Detail: "in no gem folder (bundle install puts it there)"}
}
