/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/sandbox/transparent.sh's resolver: getaddrinfo(NAME) for IPv4, as
 * the C library it is linked with does it (glibc, or musl when built with
 * musl-gcc), printing "NAME ADDR" for each address, or "failed TEXT".
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

int
main(int argc, char **argv)
{
	struct addrinfo hints, *res, *ai;
	char buf[INET_ADDRSTRLEN];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: lookup NAME\n");
		return 2;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	if ((rc = getaddrinfo(argv[1], NULL, &hints, &res)) != 0) {
		printf("failed %s\n", gai_strerror(rc));
		return 1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next)
		printf("%s %s\n", argv[1], inet_ntop(AF_INET,
		    &((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr,
		    buf, sizeof(buf)));
	freeaddrinfo(res);
	return 0;
}
