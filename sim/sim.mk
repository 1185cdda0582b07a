# sim fragment (filled in by the simulation model work)
