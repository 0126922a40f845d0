/* hla — hierarchical distributed dense linear algebra. The one header users include. */
#ifndef HLA_H
#define HLA_H

#include "hla/error.h"
#include "hla/bsp.h"
#include "hla/dist.h"
#include "hla/ops.h"
#include "hla/plan.h"

#endif
