package ruby

import (
	"context"
	"testing"

	ft "github.com/kast-dev/kast/analysis/internal/factstest"
)

const sample = `require 'json'
require_relative 'lib/util'

module App
  # Greeter greets.
  class Greeter < Base
    include Comparable
    attr_reader :name
    MAX = 3

    def initialize(name)
      @name = name
      @count = 0
    end

    def greet(who, loud: false)
      msg = "#{@name} #{who}"
      g = Greeter.new("a")
      g.greet(msg)
      self.helper(msg)
      [1, 2].each { |x| puts x }
      @count += 1
      Util::Helper.run(msg, loud: true)
      helper msg
    end

    def self.create
      new("x")
    end

    private

    def helper(s)
      s
    end
  end
end
`

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want ft.Expect
	}{
		{"declarations", sample, ft.Expect{
			Defs: []string{"module App", "class App.Greeter", "property App.Greeter.name", "constant App.Greeter.MAX",
				"method App.Greeter.initialize", "parameter App.Greeter.initialize.name", "field App.Greeter.@name",
				"field App.Greeter.@count", "method App.Greeter.greet", "parameter App.Greeter.greet.who",
				"parameter App.Greeter.greet.loud", "variable App.Greeter.greet.msg", "variable App.Greeter.greet.g",
				"parameter App.Greeter.greet.x", "method App.Greeter.create", "method App.Greeter.helper"},
			Refs: []string{"read name", "read @name", "read who", "call Greeter.new", "call g.greet", "call self.helper",
				"call puts", "read x", "read|write @count", "call Util.Helper.run", "read Util.Helper", "call helper",
				"call new", "read s", "inheritance Base", "inheritance Comparable"},
			Absent:     []string{"call private", "call s", "read loud", "call require"},
			Calls:      []string{"App.Greeter.greet -> new", "App.Greeter.greet -> greet", "App.Greeter.greet -> helper", "App.Greeter.greet -> puts", "App.Greeter.create -> new"},
			Supertypes: []string{"App.Greeter <: Base", "App.Greeter <: Comparable"},
			Imports:    []string{"json.*", "./lib/util.*"},
		}},
		{"super", "class B < A\n  def price(x)\n    super(x) + super\n  end\nend\n", ft.Expect{
			Refs:  []string{"call super.price", "read x", "call super.price"},
			Calls: []string{"B.price -> price", "B.price -> price"},
		}},
		{"syntax error", "def broken(\n", ft.Expect{Errors: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Extract(context.Background(), "a.rb", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			ft.Check(t, f, tt.want)
		})
	}
	f, _ := Extract(context.Background(), "a.rb", []byte(sample))
	if g := ft.DefNamed(t, f, "App.Greeter"); g.Doc != "Greeter greets." || g.Signature != "class Greeter < Base" {
		t.Errorf("Greeter = %+v", g)
	}
	if h := ft.DefNamed(t, f, "App.Greeter.helper"); h.Visibility != "private" {
		t.Errorf("helper visibility %q", h.Visibility)
	}
	if g := ft.DefNamed(t, f, "App.Greeter.greet"); g.Visibility != "public" {
		t.Errorf("greet visibility %q", g.Visibility)
	}
	if g := ft.DefNamed(t, f, "App.Greeter.greet.g"); g.TypeName != "Greeter" {
		t.Errorf("g type %q", g.TypeName)
	}
}
