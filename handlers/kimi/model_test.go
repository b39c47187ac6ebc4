package kimi_test

import "github.com/kast-dev/kast/agent/agenttest"

// The loopback model and the environment pointing kast at it (shared with
// the other agent projections' tests).
var (
	scriptedModel = agenttest.ScriptedModel
	testEnv       = agenttest.Env
)
