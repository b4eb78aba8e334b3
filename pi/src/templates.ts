/* docker_init's starting points, written in the workspace on the host. */
export const LANGS = ["node", "pnpm", "go", "python", "rust", "generic"] as const;
export type Lang = (typeof LANGS)[number];

export const PORTS: Record<Lang, number> = { node: 3000, pnpm: 3000, go: 8080, python: 8000, rust: 3000, generic: 8080 };

/** has(f): is f a plain file of the directory (never through a link out) */
export type Has = (f: string) => boolean;

export function detect(has: Has): Lang {
	if (has("pnpm-lock.yaml") && has("package.json")) return "pnpm";
	if (has("package.json")) return "node";
	if (has("go.mod")) return "go";
	if (has("pyproject.toml") || has("requirements.txt")) return "python";
	if (has("Cargo.toml")) return "rust";
	return "generic";
}

export function dockerfile(lang: Lang, has: Has): string {
	const port = PORTS[lang];
	switch (lang) {
		case "node": {
			const install = has("package-lock.json") || has("npm-shrinkwrap.json") ? "npm ci" : "npm install";
			return `FROM node:22-alpine
WORKDIR /app
COPY package*.json ./
RUN ${install}
COPY . .
EXPOSE ${port}
CMD ["npm", "start"]
`;
		}
		case "pnpm":
			return `FROM node:22-alpine
WORKDIR /app
RUN corepack enable
COPY package.json pnpm-lock.yaml* ./
RUN pnpm install --frozen-lockfile || pnpm install
COPY . .
EXPOSE ${port}
CMD ["pnpm", "start"]
`;
		case "go":
			return `FROM golang:1.24-alpine AS build
WORKDIR /src
COPY go.mod go.sum* ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /app .

FROM alpine:3.20
COPY --from=build /app /app
EXPOSE ${port}
CMD ["/app"]
`;
		case "python":
			return `FROM python:3.12-slim
WORKDIR /app
COPY requirements.txt* ./
RUN if [ -f requirements.txt ]; then pip install --no-cache-dir -r requirements.txt; fi
COPY . .
EXPOSE ${port}
CMD ["python", "-m", "http.server", "${port}"]
`;
		case "rust":
			return `FROM rust:1.80-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
RUN cargo build --release && \\
    cp "target/release/$(awk -F'"' '/^name *=/ { print $2; exit }' Cargo.toml)" /out-app

FROM alpine:3.20
COPY --from=build /out-app /app/app
EXPOSE ${port}
CMD ["/app/app"]
`;
		case "generic":
			return `FROM alpine:3.20
WORKDIR /app
COPY . .
EXPOSE ${port}
# replace with the command that starts your program
CMD ["sh", "-c", "echo 'edit the CMD of this Dockerfile'; sleep infinity"]
`;
	}
}

export const DOCKERIGNORE = [".git", ".gitignore", ".pi", "node_modules", "dist", "build", "target", "coverage", ".env", ".env.*", "*.log", ".DS_Store", ""].join("\n");

export function compose(lang: Lang): string {
	const port = PORTS[lang];
	return `services:
  app:
    build: .
    ports:
      - "${port}:${port}"
    restart: unless-stopped
`;
}
