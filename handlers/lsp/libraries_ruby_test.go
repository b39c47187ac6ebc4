package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/libraries"
)

// Ruby: Gemfile.lock's gems, installed in a gem folder, answer definitions
// of the constants and methods a required gem's lib/ declares, and of the
// require itself (the gem's lib/<feature>.rb); a gem
// folder that is a symlink loop and a gem not installed are skipped with
// their reasons.
func TestLSPRubyIntoGems(t *testing.T) {
	files := map[string]string{
		"gems/gems/rack-2.2.8/lib/rack.rb":          "require 'rack/request'\n\n# Rack is the web server interface.\nmodule Rack\n  def self.version\n    '2.2.8'\n  end\nend\n",
		"gems/gems/rack-2.2.8/lib/rack/request.rb":  "module Rack\n  # A request.\n  class Request\n    def params\n      {}\n    end\n  end\nend\n",
		"gems/gems/rack-2.2.8/test/spec_request.rb": "class Request\nend\n",
		"gems/specifications/rack-2.2.8.gemspec":    "",
		"ws/Gemfile":                                "source 'https://rubygems.org'\ngem 'rack'\n",
		"ws/Gemfile.lock":                           "GEM\n  remote: https://rubygems.org/\n  specs:\n    loopy (1.0)\n    missing (0.3.1)\n    rack (2.2.8)\n      webrick (>= 1.0)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  rack\n\nBUNDLED WITH\n   2.4.10\n",
		"ws/app.rb":                                 "require 'rack'\n\nmodule App\n  class Main\n    def go\n      req = Rack::Request.new\n      req.params\n      Rack.version\n    end\n  end\nend\n",
	}
	e, _ := startSourcesLSP(t, files, 1, func(dir string) {
		l := filepath.Join(dir, "gems", "gems", "loopy-1.0")
		if err := os.Symlink(l, l); err != nil {
			t.Fatal(err)
		}
	})
	gem := filepath.ToSlash(filepath.Join(filepath.Dir(e.root), "gems", "gems", "rack-2.2.8", "lib"))
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{5, 19, gem + "/rack/request.rb:2"}, // Rack::Request
		{6, 11, gem + "/rack/request.rb:3"}, // req.params
		{7, 12, gem + "/rack.rb:4"},         // Rack.version
		{0, 10, gem + "/rack.rb:0"},         // require 'rack'
	} {
		if got := e.defAt("app.rb", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	if err := e.client.Call(e.ctx, "textDocument/hover", e.at("app.rb", 5, 19), &hover); err != nil {
		t.Fatal(err)
	}
	if v := hover.Contents.Value; !strings.Contains(v, "class Request") || !strings.Contains(v, "A request.") {
		t.Errorf("hover on Rack::Request = %q", v)
	}
	st := e.waitLibraries(1)
	reasons := map[string]string{}
	for _, s := range st.Skipped {
		reasons[s.Library] = s.Reason
	}
	for lib, want := range map[string]string{"loopy@1.0": libraries.LinkLoop, "missing@0.3.1": libraries.NotInstalled} {
		if reasons[lib] != want {
			t.Errorf("%s skipped for %q, want %q (all: %+v)", lib, reasons[lib], want, st.Skipped)
		}
	}
	for _, l := range st.Indexed {
		if l.Library == "rack@2.2.8" && l.Files != 2 {
			t.Errorf("rack indexed %d files, want 2 (lib/ only)", l.Files)
		}
	}
}
