package testrun

// configInit fills maps.o's config map (object's tests read it too).
const configInit = `maps:
  config:
    - key: 0
      value: {port: 53, enabled: 1, limit: 59}
`
