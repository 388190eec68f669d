package main

import (
	"io"
	"log"
)

type logger = log.Logger

func newLogger(w io.Writer) *logger { return log.New(w, "", log.LstdFlags) }
