# host fragment
